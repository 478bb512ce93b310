/**
 * zod's `fromJSONSchema` (a JSON Schema to zod converter, about 12 KB of the minified bundle)
 * without its converter: the Worker writes its schemas in zod and converts only the other way (the
 * OpenAPI description, MCP's tool inputs). wrangler.toml's [alias] points zod's own
 * `./from-json-schema.js` here; a unit test checks the name against zod's.
 */

/** Not in the Worker: throws if ever called. */
export function fromJSONSchema(): never {
  throw new Error("zod's fromJSONSchema() is not in the Worker's bundle (wrangler.toml [alias])");
}
