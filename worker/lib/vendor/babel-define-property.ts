/** `@babel/runtime-corejs3`'s `defineProperty` helper without core-js: the platform's own Object.defineProperty. */
export default function defineProperty<T extends object>(target: T, key: PropertyKey, value: unknown): T {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  return target;
}
