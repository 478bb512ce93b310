/**
 * The writes every provider change shares: the state machine's refusal, the transition row, and the
 * events, each written only with its change (`change_id`).
 */
import { eq, sql } from 'drizzle-orm';
import { insertWhere, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ProviderStatus } from '../../vocabulary';
import { revokeProviderLive } from '../conversations';
import { withinWorkspace } from '../shards';
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
 * After a provider's change has committed (in the directory): `provider.status_changed` for each
 * workspace the provider belongs to (their team's site owners hear of it), each on its own
 * organisation's shard; and a provider who stops being active (suspended, or back under review)
 * loses the live sockets of the leads they hold. Not in the change's batch: those rows are on
 * other databases (docs/design/scale.md#the-layout).
 */
export async function afterProviderChange(
  db: Database,
  row: ProviderRow,
  from: ProviderStatus,
  to: ProviderStatus,
  now: number,
): Promise<void> {
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
  for (const team of teams)
    await withinWorkspace(db, team.workspaceId, () =>
      db.batch([eventInsertWhere(db, newEvent('provider.status_changed', team.workspaceId, data), sql`1`, now)]),
    );
  if (from === 'active' && to !== 'active') await revokeProviderLive(db, row.id);
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
