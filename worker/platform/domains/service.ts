/**
 * The domain catalog (docs/design/providers-and-leads.md): the business domains that executions, channels
 * and providers' accepted scopes may name, kept by admins. Anything else is 422 `unknown_domain`.
 * The catalog is read on every execution, so it is cached briefly in the isolate.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { TtlCache } from '../../lib/ttl-cache';
import { chooseDomain, type DomainChoice } from '../../brain';
import { auditInsert, auditInsertWhere, type AuditContext } from '../audit';
import { clock } from '../../lib/clock';

const { domains } = schema;

export interface DomainEntry {
  domain: string;
  name: string;
  description: string | null;
  /** What an expert pays to claim one of its leads, in minor units of `lead_price_currency`; null: free. */
  lead_price_minor: number | null;
  lead_price_currency: string | null;
  created_at: string;
}

/** A lead price as the catalog stores it: null, or an amount and its currency. */
export type LeadPrice = { minor: number; currency: string } | null;

/** A catalog row as the API shows it. */
function domainEntry(row: typeof domains.$inferSelect): DomainEntry {
  return {
    domain: row.slug,
    name: row.name,
    description: row.description,
    lead_price_minor: row.leadPriceMinor,
    lead_price_currency: row.leadPriceMinor === null ? null : row.leadPriceCurrency,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

/** A lead price's two columns. */
const priceColumns = (price: LeadPrice) => ({
  leadPriceMinor: price?.minor ?? null,
  leadPriceCurrency: price?.currency ?? null,
});

const catalogCache = new TtlCache<DomainEntry[]>(30_000, 1);

/** Every domain of the catalog, by slug. */
export async function listDomainEntries(db: Database): Promise<DomainEntry[]> {
  return catalogCache.get('all', db, async () => {
    const rows = await db.select().from(domains).orderBy(asc(domains.slug));
    return rows.map(domainEntry);
  });
}

/** Every domain slug of the catalog, in a stable order. */
export async function listDomains(db: Database): Promise<string[]> {
  return (await listDomainEntries(db)).map((entry) => entry.domain);
}

/** Whether the catalog has this domain. */
export async function isKnownDomain(db: Database, domain: string): Promise<boolean> {
  return (await listDomains(db)).includes(domain);
}

/** Refuses a domain outside the catalog with 422 `unknown_domain`, naming the field. */
export async function assertKnownDomain(db: Database, domain: string, pointer = '/domain'): Promise<void> {
  if (await isKnownDomain(db, domain)) return;
  throw new ApiError(
    'unknown_domain',
    `No domain "${domain}" in the catalog. Known: ${(await listDomains(db)).join(', ')}.`,
    {
      errors: [{ pointer, detail: 'Unknown domain.' }],
    },
  );
}

/** Adds a domain to the catalog; an existing slug is 409. */
export async function createDomain(
  db: Database,
  audit: AuditContext,
  input: { domain: string; name: string; description?: string; leadPrice?: LeadPrice },
  now = clock.now(),
): Promise<DomainEntry> {
  const conflict = () =>
    new ApiError('conflict', `The catalog already has the domain "${input.domain}".`, {
      errors: [{ pointer: '/domain', detail: 'Already in the catalog.' }],
    });
  if (await db.select({ slug: domains.slug }).from(domains).where(eq(domains.slug, input.domain)).get())
    throw conflict();
  const row = {
    slug: input.domain,
    name: input.name,
    description: input.description ?? null,
    ...priceColumns(input.leadPrice ?? null),
    createdAt: now,
  };
  try {
    await db.batch([
      db.insert(domains).values(row),
      auditInsert(
        db,
        audit,
        {
          action: 'domain.created',
          targetId: input.domain,
          metadata: {
            name: input.name,
            lead_price_minor: row.leadPriceMinor,
            lead_price_currency: row.leadPriceCurrency,
          },
        },
        now,
      ),
    ]);
  } catch (error) {
    if (isConstraintViolation(error, 'domains.slug')) throw conflict();
    throw error;
  }
  catalogCache.clear();
  return domainEntry(row);
}

/** Changes a domain's name, description or lead price (404 for a domain outside the catalog). */
export async function updateDomain(
  db: Database,
  audit: AuditContext,
  slug: string,
  change: { name?: string; description?: string | null; leadPrice?: LeadPrice },
  now = clock.now(),
): Promise<DomainEntry> {
  const set = {
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.leadPrice !== undefined ? priceColumns(change.leadPrice) : {}),
  };
  const [updated] = await db.batch([
    db
      .update(domains)
      .set(Object.keys(set).length > 0 ? set : { slug })
      .where(eq(domains.slug, slug))
      .returning(),
    auditInsertWhere(
      db,
      audit,
      {
        action: 'domain.updated',
        targetId: slug,
        metadata: {
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(change.leadPrice !== undefined
            ? {
                lead_price_minor: change.leadPrice?.minor ?? null,
                lead_price_currency: change.leadPrice?.currency ?? null,
              }
            : {}),
        },
      },
      sql`EXISTS (SELECT 1 FROM ${domains} WHERE ${domains.slug} = ${slug})`,
      now,
    ),
  ]);
  const row = updated[0];
  if (!row) throw new ApiError('not_found', `No domain "${slug}" in the catalog.`);
  catalogCache.clear();
  return domainEntry(row);
}

/**
 * The domain of a demand that names none (docs/design/callers.md): the brain chooses among the
 * catalog by the demand's words, else the workspace's default; 422 `unknown_domain` for an empty
 * catalog.
 */
export async function domainForText(
  db: Database,
  text: string,
  workspaceDefault: string | null,
): Promise<DomainChoice> {
  const catalog = await listDomainEntries(db);
  const choice = chooseDomain(
    text,
    catalog.map(({ domain, name, description }) => ({ domain, name, description })),
    workspaceDefault,
  );
  if (!choice) throw new ApiError('unknown_domain', 'The catalog has no domain yet.');
  return choice;
}
