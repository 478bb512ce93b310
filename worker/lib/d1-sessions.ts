/**
 * Reads from D1's replicas (docs/design/scale.md#reads-and-replicas). Every request's writes go
 * through a session that starts at the primary; the reads of the routes that make no decision go
 * through a second session that may start at any replica, or at the bookmark the caller brings
 * back from its own last write (so it never reads older than what it wrote). That session is
 * read-only here: a write through it throws, so nothing is decided and written on a replica's read.
 */

/** A D1 binding or one of its sessions: what drizzle and the counters use of it. */
export type D1Like = Pick<D1Database, 'prepare' | 'batch'>;

/** The header a caller sends its last bookmark in, and receives the newest one in. */
export const BOOKMARK_HEADER = 'X-EGW-Bookmark';
/** The console's cookie for the same: an owner's next page reads at least what they just changed. */
export const BOOKMARK_COOKIE = 'egw_d1';
/** How long a console bookmark is worth keeping: replicas catch up within seconds. */
export const BOOKMARK_COOKIE_SECONDS = 300;

/** A bookmark as a caller sent it, if it looks like ours (plain, bounded), else null. */
export function bookmarkFrom(value: string | null | undefined): string | null {
  return value && /^[\w~.-]{1,800}$/.test(value) ? value : null;
}

/**
 * One value for the bookmarks of several databases (the directory and the shards a unit of work
 * used), each under its name: `dir~<bookmark>.0~<bookmark>` (characters a cookie keeps as
 * they are). D1's bookmarks are hex and dashes.
 */
export function composeBookmarks(entries: ReadonlyArray<readonly [string, string | null]>): string | null {
  const kept = entries.filter(([, bookmark]) => bookmark).map(([name, bookmark]) => `${name}~${bookmark}`);
  return kept.length ? kept.join('.') : null;
}

/** The bookmarks a caller brought back, by database name; a value of another shape gives none. */
export function bookmarksFrom(value: string | null): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of value?.split('.') ?? []) {
    const [name, bookmark] = entry.split('~');
    if (name && bookmark && /^[\w-]+$/.test(bookmark)) found.set(name, bookmark);
  }
  return found;
}

/** Why a write reached a replica's session: a route classified as reading only wrote. */
export class ReplicaWriteError extends Error {
  override name = 'ReplicaWriteError';
}

/**
 * Whether a statement changes the database: INSERT, UPDATE, DELETE or REPLACE, at its start or
 * after a WITH clause (the read paths write `WITH … SELECT`).
 */
export function isWriteStatement(text: string): boolean {
  const statement = text.trim().replace(/^\(+/, '');
  if (/^(insert|update|delete|replace|create|drop|alter)\b/i.test(statement)) return true;
  return (
    /^with\b/i.test(statement) &&
    /\)\s*(insert\s+into|update\s+\S+\s+set|delete\s+from|replace\s+into)\b/i.test(statement)
  );
}

/** The session as a reader: every statement it prepares must read only. */
export function readOnlyD1<T extends D1Like>(database: T): T {
  return new Proxy(database, {
    get(target, property) {
      if (property === 'prepare')
        return (query: string) => {
          if (isWriteStatement(query))
            throw new ReplicaWriteError(`A write on a replica's read session: ${query.slice(0, 80)}`);
          return target.prepare(query);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The two sessions of a unit of work, and the newest bookmark either of them reached. */
export interface D1Sessions {
  primary: D1Like;
  replica: D1Like;
  /** The bookmark to hand back: the primary's when it was used (it wrote, or decided), else the replica's. */
  bookmark(): string | null;
}

/**
 * A request's sessions: the primary's ('first-primary'), and the replica's, from the caller's
 * bookmark or anywhere ('first-unconstrained'). A binding without sessions (an older runtime)
 * answers itself for both.
 */
export function d1Sessions(database: D1Database, readAfter: string | null): D1Sessions {
  if (typeof database.withSession !== 'function')
    return { primary: database, replica: readOnlyD1(database), bookmark: () => null };
  const primary = database.withSession('first-primary');
  const replica = database.withSession(readAfter ?? 'first-unconstrained');
  return {
    primary,
    replica: readOnlyD1(replica),
    bookmark: () => primary.getBookmark() ?? replica.getBookmark() ?? readAfter,
  };
}
