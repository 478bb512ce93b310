/** `@babel/runtime-corejs3`'s `instance/trim` without core-js: the platform's own String#trim. */
export default function trimOf(value: string): () => string {
  return value.trim;
}
