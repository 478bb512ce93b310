/**
 * For scripts/conformance.mjs on Node 20: the MCP conformance suite imports `globSync` from `fs`
 * (Node 22) when it loads, for a command the script does not run. This loader hook gives the suite
 * an `fs` with a `globSync` that says so, and leaves every other importer's `fs` alone.
 */
import { register } from 'node:module';

const shim = `import fs from 'node:fs';
export * from 'node:fs';
export default fs;
export function globSync() { throw new Error('This command needs Node 22 (fs.globSync).'); }`;

const hooks = `export async function resolve(specifier, context, next) {
  const suite = context.parentURL?.includes('@modelcontextprotocol/conformance');
  if (suite && (specifier === 'fs' || specifier === 'node:fs'))
    return { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(shim)}`)}, shortCircuit: true };
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
