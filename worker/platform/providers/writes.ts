/**
 * The writes every provider change shares: the state machine's refusal, the transition row, and the
 * events, each written only with its change (`change_id`).
 */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { insertWhere, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ProviderStatus } from '../../vocabulary';
import { providerLiveRevocation } from '../conversations';
import { type EventData, eventInsertWhere, newEvent } from '../events';
import type { ProviderEvent } from './transitions';

import type { ProviderRow } from './records';

const { providers, providerTransitions, memberships } = schema;

/** The 409 for a change the state machine does not allow from the provider's state. */
export const invalidTransition = (current: ProviderStatus, event: ProviderEvent) =>
  new ApiError(
    'invalid_transition',
    `A provider in state ${current} cannot be ` +
      `${event === 'submit' ? 'submitted' : event === 'material_change' ? 'changed that way' : `${event}d`}.`,
    {
      extensions: { status: current },
    },
  );

/**
 * This change (`changeId`) is the provider's last: the condition under which its history, audit
 * and event rows are written. A change that lost a race to another writes none of them.
 */
export const changeApplied = (providerId: string, changeId: string) =>
  sql`EXISTS (SELECT 1 FROM ${providers} WHERE ${providers.id} = ${providerId} AND ${providers.changeId} =
    ${changeId})`;

/**
 * `provider.status_changed` for each workspace the provider belongs to (their team's site owners
 * hear of it), written only if the transition happened; and a provider who stops being active
 * (suspended, or back under review) loses the live sockets of the leads they hold, after the commit.
 */
export async function providerEventWrites(
  db: Database,
  row: ProviderRow,
  from: ProviderStatus,
  to: ProviderStatus,
  changeId: string,
  now: number,
): Promise<BatchItem<'sqlite'>[]> {
  const teams = await db
    .select({ workspaceId: memberships.workspaceId })
    .from(memberships)
    .where(eq(memberships.userId, row.userId));
  const data: EventData<'provider.status_changed'> = {
    provider_id: row.id,
    kind: row.kind,
    display_name: row.displayName,
    from,
    to,
    changed_at: new Date(now).toISOString(),
  };
  const writes = teams.map((team) =>
    eventInsertWhere(
      db,
      newEvent('provider.status_changed', team.workspaceId, data),
      changeApplied(row.id, changeId),
      now,
    ),
  );
  if (from === 'active' && to !== 'active')
    writes.push(providerLiveRevocation(db, row.id, changeApplied(row.id, changeId)));
  return writes;
}

/** The row that records one transition (or an edit under review), written only with its change. */
export function transitionInsert(
  db: Database,
  providerId: string,
  change: { from: ProviderStatus | null; to: ProviderStatus; id: string },
  actor: { kind: 'provider' | 'admin' | 'user' | 'system'; id: string | null },
  note: string | null,
  now: number,
) {
  return insertWhere(
    db,
    providerTransitions,
    {
      id: newId('ptr', now),
      providerId,
      fromStatus: change.from,
      toStatus: change.to,
      actorKind: actor.kind,
      actorId: actor.id,
      note,
      createdAt: now,
    },
    changeApplied(providerId, change.id),
  );
}
