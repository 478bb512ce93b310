/**
 * The Worker's databases by binding (docs/design/scale.md#the-layout): `DIRECTORY`, and the shards
 * `DB_0`, `DB_1`, … in order. Adding a shard is adding a binding and applying the migrations to it.
 */

/** The directory's binding and the shards', by index. */
export interface BoundDatabases {
  directory: D1Database;
  shards: D1Database[];
}

const bound = new WeakMap<object, BoundDatabases>();

/** The databases an environment binds: shards are `DB_<n>` from 0 up, without gaps. */
export function boundDatabases(env: { DIRECTORY: D1Database }): BoundDatabases {
  const known = bound.get(env);
  if (known) return known;
  const shards: D1Database[] = [];
  const bindings = env as unknown as Record<string, D1Database | undefined>;
  for (let index = 0; bindings[`DB_${index}`]; index++) shards.push(bindings[`DB_${index}`]!);
  if (shards.length === 0) throw new Error('No shard database is bound (DB_0 at least).');
  const databases = { directory: env.DIRECTORY, shards };
  bound.set(env, databases);
  return databases;
}

/** A database's name in bookmarks and reports: `dir`, or the shard's index. */
export const databaseName = (index: number | 'directory') => (index === 'directory' ? 'dir' : `${index}`);
