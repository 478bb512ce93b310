/**
 * Provisioning requests (docs/design/identity-and-access.md): API keys and webhook endpoints are
 * the platform's to provision, so a workspace owner asks for one in the console, and a platform
 * admin approves or declines it there (audited). Both sides are emailed. An approval makes the key
 * or endpoint by the same services the admin API uses; its one secret (the key's token, the
 * endpoint's signing secret) waits on the request, encrypted, until an owner has seen it once.
 */
import { enterWhereFound, readEveryShard } from '../shards';
import { and, desc, eq, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import type { EgressPolicy } from '../../lib/egress';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { decryptSecret, encryptSecret } from '../../lib/secrets';
import { type AuditContext, auditInsert, auditInsertWhere } from '../audit';
import { noticeInserts, platformAdmins } from '../email';
import { issueApiKey } from '../keys';
import { createEndpoint } from '../webhooks';
import type { ProvisioningRequestBody, ProvisioningRequestView } from './schemas';
import { iso } from '../../lib/periods';

const { provisioningRequests, memberships, workspaces } = schema;

type RequestRow = typeof provisioningRequests.$inferSelect;

/** At most this many requests wait at once per workspace. */
export const PENDING_PER_WORKSPACE = 10;

function viewOf(row: RequestRow): ProvisioningRequestView {
  return {
    request_id: row.id,
    workspace_id: row.workspaceId,
    kind: row.kind,
    status: row.status,
    details: row.details,
    requested_by: row.requestedBy,
    decision_note: row.decisionNote,
    result_id: row.resultId,
    secret_waiting: row.sealedSecret !== null,
    created_at: new Date(row.createdAt).toISOString(),
    decided_at: iso(row.decidedAt),
  };
}

/** The platform admins, as the recipients of a notice. */
/** A workspace's owners, as the recipients of a notice. */
const ownersOf = (workspaceId: string) =>
  sql`SELECT ${memberships.userId} AS user_id FROM ${memberships} WHERE ${memberships.workspaceId} = ${workspaceId}
    AND ${memberships.role} = 'owner'`;

const what = (kind: RequestRow['kind']) => (kind === 'api_key' ? 'an API key' : 'a webhook endpoint');

/** An owner asks for a key or an endpoint; the platform admins are emailed, in the same batch. */
export async function requestProvisioning(
  db: Database,
  audit: AuditContext,
  request: { workspaceId: string; userId: string; body: ProvisioningRequestBody; linkOrigin: string },
  now: number,
): Promise<ProvisioningRequestView> {
  const { kind, ...details } = request.body;
  const row: RequestRow = {
    id: newId('prq', now),
    workspaceId: request.workspaceId,
    kind,
    status: 'pending',
    details,
    requestedBy: request.userId,
    decidedBy: null,
    decidedAt: null,
    decisionNote: null,
    resultId: null,
    sealedSecret: null,
    secretShownAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const room = sql`(SELECT COUNT(*) FROM ${provisioningRequests} WHERE ${provisioningRequests.workspaceId} =
    ${request.workspaceId} AND ${provisioningRequests.status} = 'pending') < ${PENDING_PER_WORKSPACE}`;
  const written = sql`EXISTS (SELECT 1 FROM ${provisioningRequests} WHERE ${provisioningRequests.id} = ${row.id})`;
  const name = sql`(SELECT ${workspaces.name} FROM ${workspaces} WHERE ${workspaces.id} = ${request.workspaceId})`;
  const [inserted] = await db.batch([
    db.run(sql`INSERT INTO ${provisioningRequests} (id, workspace_id, kind, status, details, requested_by, created_at,
        updated_at)
      SELECT ${row.id}, ${row.workspaceId}, ${kind}, 'pending', ${JSON.stringify(details)}, ${row.requestedBy}, ${now},
        ${now} WHERE ${room}`),
    auditInsertWhere(
      db,
      audit,
      { action: 'provisioning.requested', targetId: row.id, workspaceId: row.workspaceId, metadata: { kind } },
      written,
      now,
    ),
    noticeInserts(
      db,
      {
        recipients: await platformAdmins(db),
        workspaceId: row.workspaceId,
        subject: `A workspace asks for ${what(kind)}`,
        linkPath: '/admin/requests',
        linkOrigin: request.linkOrigin,
        when: sql`${written} AND ${name} IS NOT NULL`,
      },
      now,
    ),
  ]);
  if ((inserted as { meta?: { changes?: number } }).meta?.changes === 0)
    throw new ApiError(
      'rate_limited',
      `At most ${PENDING_PER_WORKSPACE} requests wait at once; the platform team decides them in turn.`,
    );
  return viewOf(row);
}

/** A workspace's requests, newest first. */
export async function listWorkspaceRequests(db: Database, workspaceId: string): Promise<ProvisioningRequestView[]> {
  const rows = await db
    .select()
    .from(provisioningRequests)
    .where(eq(provisioningRequests.workspaceId, workspaceId))
    .orderBy(desc(provisioningRequests.createdAt))
    .limit(50);
  return rows.map(viewOf);
}

/** The requests waiting for a decision, oldest first, with their workspace's name (platform admins). */
export async function listPendingRequests(db: Database) {
  // Every shard's, at once, merged oldest first (each shard's organisations ask on their own).
  const everyShard = await readEveryShard(db, provisioningRequests, (shardDb) =>
    shardDb
      .select({ request: provisioningRequests, workspaceName: workspaces.name })
      .from(provisioningRequests)
      .leftJoin(workspaces, eq(workspaces.id, provisioningRequests.workspaceId))
      .where(eq(provisioningRequests.status, 'pending'))
      .orderBy(provisioningRequests.createdAt)
      .limit(100),
  );
  const rows = everyShard
    .flat()
    .sort((a, b) => a.request.createdAt - b.request.createdAt)
    .slice(0, 100);
  return rows.map((row) => ({ ...viewOf(row.request), workspace_name: row.workspaceName }));
}

/** What deciding needs besides the database: the egress guard (an endpoint's URL) and SECRETS_KEY. */
export interface DecisionDeps {
  egress: EgressPolicy;
  secretsKey: string | undefined;
  linkOrigin: string;
}

/**
 * A platform admin decides a pending request, once (a conditional UPDATE: two admins at once
 * cannot both). An approval then makes the key or endpoint; if that fails, the request waits
 * again. The owners are emailed either way.
 */
export async function decideProvisioning(
  db: Database,
  audit: AuditContext,
  requestId: string,
  decision: { decision: 'approve' | 'decline'; note: string | null },
  deps: DecisionDeps,
  now: number,
): Promise<ProvisioningRequestView> {
  const status = decision.decision === 'approve' ? 'approved' : 'declined';
  if (status === 'approved' && !deps.secretsKey)
    throw new ApiError('service_unavailable', 'Approving needs the SECRETS_KEY secret, which is not configured.');
  // The request names itself alone: its organisation's shard is the one that has it.
  const { id: idColumn, workspaceId: workspaceColumn } = provisioningRequests;
  if (!(await enterWhereFound(db, provisioningRequests, idColumn, workspaceColumn, requestId)))
    throw new ApiError('not_found', `No provisioning request ${requestId}.`);
  const [taken] = await db
    .update(provisioningRequests)
    .set({ status, decidedBy: audit.actorId, decidedAt: now, decisionNote: decision.note, updatedAt: now })
    .where(and(eq(provisioningRequests.id, requestId), eq(provisioningRequests.status, 'pending')))
    .returning();
  if (!taken) {
    const exists = await db.select().from(provisioningRequests).where(eq(provisioningRequests.id, requestId)).get();
    if (!exists) throw new ApiError('not_found', `No provisioning request ${requestId}.`);
    throw new ApiError('invalid_transition', `The request ${requestId} is ${exists.status} already.`);
  }
  let made: { resultId: string; secret: string } | undefined;
  if (status === 'approved') {
    try {
      made = await provision(db, audit, taken, deps, now);
    } catch (error) {
      await db
        .update(provisioningRequests)
        .set({ status: 'pending', decidedBy: null, decidedAt: null, decisionNote: null, updatedAt: now })
        .where(eq(provisioningRequests.id, requestId));
      throw error;
    }
  }
  const sealed = made ? await encryptSecret(made.secret, deps.secretsKey!) : null;
  const [decided] = await db.batch([
    db
      .update(provisioningRequests)
      .set({ resultId: made?.resultId ?? null, sealedSecret: sealed, updatedAt: now })
      .where(eq(provisioningRequests.id, requestId))
      .returning(),
    auditInsert(
      db,
      audit,
      {
        action: `provisioning.${status}`,
        targetId: requestId,
        workspaceId: taken.workspaceId,
        metadata: { kind: taken.kind, result_id: made?.resultId ?? null },
      },
      now,
    ),
    noticeInserts(
      db,
      {
        recipients: ownersOf(taken.workspaceId),
        workspaceId: taken.workspaceId,
        subject:
          status === 'approved'
            ? `Your request for ${what(taken.kind)} was approved`
            : `Your request for ${what(taken.kind)} was declined`,
        linkPath: `/integrations?ws=${encodeURIComponent(taken.workspaceId)}#requests-title`,
        linkOrigin: deps.linkOrigin,
      },
      now,
    ),
  ]);
  return viewOf(decided[0]!);
}

/** Makes what an approved request asked for, with the services the admin API uses. */
async function provision(db: Database, audit: AuditContext, row: RequestRow, deps: DecisionDeps, now: number) {
  const details = row.details as Record<string, unknown>;
  if (row.kind === 'api_key') {
    const issued = await issueApiKey(
      db,
      audit,
      { workspaceId: row.workspaceId, name: String(details.name), scopes: details.scopes as string[] },
      now,
    );
    return { resultId: issued.key_id, secret: issued.token };
  }
  const endpoint = await createEndpoint(
    db,
    audit,
    {
      workspaceId: row.workspaceId,
      url: String(details.url),
      eventTypes: details.event_types as never,
      description: String(details.purpose).slice(0, 200),
    },
    deps.egress,
    deps.secretsKey,
    now,
  );
  return { resultId: endpoint.webhook_id, secret: endpoint.secret };
}

/**
 * An owner sees an approved request's secret, once: the same batch reads it and clears it, so two
 * owners asking at once get it once between them. Afterwards it exists only where they put it.
 */
export async function revealProvisionedSecret(
  db: Database,
  audit: AuditContext,
  workspaceId: string,
  requestId: string,
  secretsKey: string | undefined,
  now: number,
): Promise<{ request: ProvisioningRequestView; secret: string }> {
  const which = and(eq(provisioningRequests.id, requestId), eq(provisioningRequests.workspaceId, workspaceId));
  const [rows] = await db.batch([
    db.select().from(provisioningRequests).where(which),
    db
      .update(provisioningRequests)
      .set({ sealedSecret: null, secretShownAt: now, updatedAt: now })
      .where(and(which, sql`${provisioningRequests.sealedSecret} IS NOT NULL`)),
    auditInsertWhere(
      db,
      audit,
      { action: 'provisioning.secret_shown', targetId: requestId, workspaceId, metadata: {} },
      sql`EXISTS (SELECT 1 FROM ${provisioningRequests} WHERE ${which}
        AND ${provisioningRequests.secretShownAt} = ${now})`,
      now,
    ),
  ]);
  const row = rows[0];
  if (!row) throw new ApiError('not_found', `No provisioning request ${requestId}.`);
  if (!row.sealedSecret || !secretsKey)
    throw new ApiError('invalid_transition', 'This secret was shown once already; it is not kept.');
  return { request: viewOf({ ...row, sealedSecret: null }), secret: await decryptSecret(row.sealedSecret, secretsKey) };
}
