// Checks that the directory and every shard have the same schema (docs/design/scale.md#the-layout):
// the same tables, indexes, triggers and views, statement for statement. With --apply it first
// applies the migrations to each of them. Local by default (the `npm run dev` state, or
// --persist-to DIR); --remote checks the deployed databases.
//   node scripts/check-shards.mjs [--apply] [--remote | --persist-to DIR]
import { databaseBindings, wrangler } from './lib.mjs';

const args = process.argv.slice(2);
const persistTo = args.includes('--persist-to') ? args[args.indexOf('--persist-to') + 1] : undefined;
const where = args.includes('--remote') ? ['--remote'] : ['--local', ...(persistTo ? ['--persist-to', persistTo] : [])];

const SCHEMA = `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL
  AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY type, name`;

/** A database's schema as one line per object. */
async function schemaOf(binding) {
  const output = await wrangler(['d1', 'execute', binding, ...where, '--json', '--command', SCHEMA]);
  const [result] = JSON.parse(output.slice(output.indexOf('[')));
  return result.results.map((row) => `${row.type} ${row.name}: ${row.sql.replace(/\s+/g, ' ')}`);
}

const bindings = databaseBindings();
if (args.includes('--apply'))
  for (const binding of bindings) await wrangler(['d1', 'migrations', 'apply', binding, ...where]);
const [first, ...others] = await Promise.all(bindings.map(schemaOf));
let differences = 0;
for (const [index, schema] of others.entries()) {
  const binding = bindings[index + 1];
  const missing = first.filter((line) => !schema.includes(line));
  const extra = schema.filter((line) => !first.includes(line));
  for (const line of missing) console.error(`${binding} lacks what ${bindings[0]} has: ${line.slice(0, 160)}`);
  for (const line of extra) console.error(`${binding} has what ${bindings[0]} lacks: ${line.slice(0, 160)}`);
  differences += missing.length + extra.length;
}
if (differences) {
  console.error(`${differences} difference(s): apply the migrations to every database (--apply).`);
  process.exit(1);
}
console.log(`${bindings.join(', ')}: one schema (${first.length} tables, indexes and triggers).`);
