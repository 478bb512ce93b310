/**
 * The domain catalog: the business domains that executions, channels and providers' accepted
 * scopes may name. Anything else is 422 `unknown_domain`.
 */
import type { Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';

/** The domains the platform serves out of the box. */
const BUILT_IN_DOMAINS = ['consultation'] as const;

/** Every domain of the catalog, in a stable order. */
export async function listDomains(_db: Database): Promise<string[]> {
  return [...BUILT_IN_DOMAINS];
}

/** Whether the catalog has this domain. */
export async function isKnownDomain(db: Database, domain: string): Promise<boolean> {
  return (await listDomains(db)).includes(domain);
}

/** Refuses a domain outside the catalog with 422 `unknown_domain`, naming the field. */
export async function assertKnownDomain(db: Database, domain: string, pointer = '/domain'): Promise<void> {
  if (await isKnownDomain(db, domain)) return;
  throw new ApiError('unknown_domain', `No domain "${domain}" in the catalog. Known: ${(await listDomains(db)).join(', ')}.`, {
    errors: [{ pointer, detail: 'Unknown domain.' }],
  });
}
