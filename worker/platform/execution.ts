/**
 * The platform core's execution pipeline, PRODUCT.md section 2 steps 4 to 8: key resolution,
 * admission, rate limit and quota, idempotency, the brain, and one D1 batch that writes the
 * execution, its audit record, the usage charge, what the brain produced and the stored response.
 * Steps 1 to 3 (body, bearer, schema) run before, as route middleware.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { findExecutor } from '../brain/executors';
import type { ExecuteRequest, ExecuteResponse, Scope, UsageApplication } from '../gateway/schemas';
import {
  EXECUTIONS_METER,
  findKeyContext,
  keyInactiveReason,
  quotaPeriod,
  type Actor,
  type KeyContext,
} from '../lib/auth';
import { isConstraintViolation, schema, type Database } from '../lib/db';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { consumeRateLimit, type RateLimitOutcome } from './rate-limit';
import { releaseIdempotencyKey, requestFingerprint, reserveIdempotencyKey } from './idempotency';

const { executions, auditLog, usageMeters, idempotencyRecords } = schema;

export interface ExecutionCommand {
  actor: Actor;
  body: ExecuteRequest;
  /** Our id of this request, for the audit record. */
  requestId: string;
  /** The request id the envelope carries: the caller's `request_id`, else ours. */
  outputRequestId: string;
  /** The trace this execution belongs to (the caller's, or generated). */
  traceId: string;
  defaultRateLimitPerMinute: number;
  now: number;
}

export interface ExecutionOutcome {
  status: number;
  /** The JSON text of the response; on a replay, exactly the bytes first sent. */
  body: string;
  replayed: boolean;
  rateLimit: RateLimitOutcome;
}

/** Step 4: the key this execution runs as. */
async function resolveExecutingKey(db: Database, actor: Actor, body: ExecuteRequest, now: number): Promise<KeyContext> {
  if (actor.kind === 'api_key') {
    if (body.key_id !== undefined && body.key_id !== actor.key.id) {
      throw new ApiError('key_mismatch', 'key_id must be the id of the bearer key, or left out.', {
        errors: [{ pointer: '/key_id', detail: 'Does not match the bearer key.' }],
      });
    }
    return actor.key;
  }
  if (body.key_id === undefined) {
    throw new ApiError('key_id_required', 'An administrator must name the API key to act as in key_id.', {
      errors: [{ pointer: '/key_id', detail: 'Required for administrator tokens.' }],
    });
  }
  const key = await findKeyContext(db, { keyId: body.key_id }, now);
  if (!key) {
    throw new ApiError('unknown_key_id', `No API key ${body.key_id}.`, {
      errors: [{ pointer: '/key_id', detail: 'No such key.' }],
    });
  }
  const inactive = keyInactiveReason(key, now);
  if (inactive) {
    throw new ApiError('key_inactive', `API key ${key.id} is ${inactive}.`, {
      errors: [{ pointer: '/key_id', detail: `The key is ${inactive}.` }],
    });
  }
  return key;
}

/** Step 5: the scopes the execution runs with. */
function admit(key: KeyContext, requiredScopes: Scope[]): string[] {
  if (!key.workspaceActive) {
    throw new ApiError('workspace_inactive', 'The workspace or organisation of this key is not active.');
  }
  const held = new Set(key.scopes);
  const missing = ['execute', ...requiredScopes].filter((scope, index, all) => !held.has(scope) && all.indexOf(scope) === index);
  if (missing.length > 0) {
    throw new ApiError('insufficient_scope', `The key lacks the scope(s): ${missing.join(', ')}.`, {
      extensions: { missing_scopes: missing },
    });
  }
  return requiredScopes.length > 0 ? [...new Set(requiredScopes)] : key.scopes;
}

export interface ExecutionRecord {
  executionId: string;
  auditId: string;
  organizationId: string;
  workspaceId: string;
  keyId: string | null;
  actorKind: 'admin' | 'api_key' | 'channel';
  actorId: string;
  domain: string;
  /** Our id of the request (the audit record's). */
  requestId: string;
  /** The request id the caller knows the execution by, when it differs from ours. */
  outputRequestId?: string;
  traceId: string;
  idempotencyKey?: string | null;
  projectId?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  grantedScopes: string[];
  exactBridge?: Record<string, unknown> | null;
  sourceRecord: string;
  now: number;
}

/** The execution row and its one audit record, for the execution's batch. */
export function executionRecordWrites(db: Database, record: ExecutionRecord): BatchItem<'sqlite'>[] {
  return [
    db.insert(executions).values({
      id: record.executionId,
      organizationId: record.organizationId,
      workspaceId: record.workspaceId,
      keyId: record.keyId,
      actorKind: record.actorKind,
      actorId: record.actorId,
      domain: record.domain,
      status: 'completed',
      requestId: record.outputRequestId ?? record.requestId,
      traceId: record.traceId,
      idempotencyKey: record.idempotencyKey ?? null,
      projectId: record.projectId ?? null,
      userId: record.userId ?? null,
      sessionId: record.sessionId ?? null,
      grantedScopes: record.grantedScopes,
      exactBridge: record.exactBridge ?? null,
      sourceRecord: record.sourceRecord,
      auditId: record.auditId,
      createdAt: record.now,
    }),
    db.insert(auditLog).values({
      id: record.auditId,
      organizationId: record.organizationId,
      workspaceId: record.workspaceId,
      actorKind: record.actorKind,
      actorId: record.actorId,
      keyId: record.keyId,
      action: 'execution.completed',
      targetId: record.executionId,
      requestId: record.requestId,
      traceId: record.traceId,
      metadata: { domain: record.domain, source_record: record.sourceRecord, scopes: record.grantedScopes },
      createdAt: record.now,
    }),
  ];
}

export async function runExecution(db: Database, command: ExecutionCommand): Promise<ExecutionOutcome> {
  const { actor, body, now } = command;
  const key = await resolveExecutingKey(db, actor, body, now);
  const grantedScopes = admit(key, body.required_scopes);
  const executor = findExecutor(body.domain);
  if (!executor) {
    throw new ApiError('unknown_domain', `No executor serves domain "${body.domain}".`, {
      errors: [{ pointer: '/domain', detail: 'Unknown domain.' }],
    });
  }

  // Step 6: rate limit, then a quick quota check (the exact one is the CHECK in the batch).
  const rateLimit = await consumeRateLimit(db, key.id, key.rateLimitPerMinute ?? command.defaultRateLimitPerMinute, now);
  if (!rateLimit.allowed) {
    throw new ApiError('rate_limited', `This key allows ${rateLimit.limit} requests per minute.`, {
      headers: { 'Retry-After': String(rateLimit.resetSeconds) },
    });
  }
  const quotaExceeded = () =>
    new ApiError('quota_exceeded', `This key's monthly quota of ${key.monthlyQuota} executions is used up.`);
  if (key.monthlyQuota !== null && key.executionsThisPeriod >= key.monthlyQuota) throw quotaExceeded();

  // Step 7: idempotency.
  const idempotencyKey = body.idempotency_key;
  if (idempotencyKey !== undefined) {
    const fingerprint = await requestFingerprint(body);
    const reservation = await reserveIdempotencyKey(db, key.id, idempotencyKey, fingerprint, now);
    if (reservation.kind === 'replay') {
      return { status: reservation.status, body: reservation.body, replayed: true, rateLimit };
    }
  }

  // Step 8: the brain, then one batch.
  try {
    const executionId = newId('exe', now);
    const auditId = newId('aud', now);
    const plan = await executor(db, {
      executionId,
      organizationId: key.organizationId,
      workspaceId: key.workspaceId,
      domain: body.domain,
      text: body.text,
      structuredInput: body.structured_input,
      attachments: body.attachments,
      grantedScopes,
      sessionId: body.session_id,
      now,
    });

    const period = quotaPeriod(now);
    const usage: UsageApplication = { meter: EXECUTIONS_METER, quantity: 1, unit: 'execution' };
    // A placeholder keeps `remaining` in its place; the batch fills in the exact value.
    if (key.monthlyQuota !== null) Object.assign(usage, { limit: key.monthlyQuota, remaining: 0 });
    const envelope: ExecuteResponse = {
      output: {
        request_id: command.outputRequestId,
        trace_id: command.traceId,
        status: 'completed',
        execution_id: executionId,
        domain: body.domain,
        result: plan.result,
      },
      usage_applications: [usage],
      exact_bridge: {
        contract_id: body.exact_bridge?.contract_id ?? '',
        escrow_id: body.exact_bridge?.escrow_id ?? '',
        org_id: key.organizationId,
        organization_id: key.organizationId,
        workspace_id: key.workspaceId,
        audit_id: auditId,
        source_layer: 'brain',
        source_record: plan.sourceRecord,
      },
    };
    const template = JSON.stringify(envelope);
    const remainingAfterCharge = sql`(SELECT ${usageMeters.quota} - ${usageMeters.used} FROM ${usageMeters} WHERE ${usageMeters.keyId} = ${key.id} AND ${usageMeters.meter} = ${EXECUTIONS_METER} AND ${usageMeters.period} = ${period})`;
    const responseBody = key.monthlyQuota === null ? sql`${template}` : sql`json_set(${template}, '$.usage_applications[0].remaining', ${remainingAfterCharge})`;

    const chargeUsage = db
      .insert(usageMeters)
      .values({ keyId: key.id, meter: EXECUTIONS_METER, period, used: 1, quota: key.monthlyQuota })
      .onConflictDoUpdate({
        target: [usageMeters.keyId, usageMeters.meter, usageMeters.period],
        set: { used: sql`${usageMeters.used} + 1`, quota: key.monthlyQuota },
      })
      .returning({ used: usageMeters.used, quota: usageMeters.quota });
    const writes: BatchItem<'sqlite'>[] = [
      ...plan.writes,
      ...executionRecordWrites(db, {
        executionId,
        auditId,
        organizationId: key.organizationId,
        workspaceId: key.workspaceId,
        keyId: key.id,
        actorKind: actor.kind,
        actorId: actor.kind === 'admin' ? actor.adminId : key.id,
        domain: body.domain,
        requestId: command.requestId,
        outputRequestId: command.outputRequestId,
        traceId: command.traceId,
        idempotencyKey: idempotencyKey ?? null,
        projectId: body.project_id ?? null,
        userId: body.user_id ?? null,
        sessionId: body.session_id ?? null,
        grantedScopes,
        exactBridge: body.exact_bridge ?? null,
        sourceRecord: plan.sourceRecord,
        now,
      }),
    ];
    // The stored response is computed inside the batch, after the charge, so it carries the
    // exact remaining quota; RETURNING hands back the very bytes a replay will send.
    const storeResponse = db
      .update(idempotencyRecords)
      .set({ state: 'completed', responseStatus: 200, responseBody: sql`${responseBody}` })
      .where(and(eq(idempotencyRecords.keyId, key.id), eq(idempotencyRecords.idempotencyKey, idempotencyKey ?? '')))
      .returning({ body: idempotencyRecords.responseBody });

    const results = await db.batch([chargeUsage, ...writes, ...(idempotencyKey !== undefined ? [storeResponse] : [])]);
    let responseText: string;
    if (idempotencyKey !== undefined) {
      const stored = results[results.length - 1] as Array<{ body: string | null }>;
      responseText = stored[0]?.body ?? template;
    } else {
      const charged = results[0][0];
      if (charged && charged.quota !== null) usage.remaining = charged.quota - charged.used;
      responseText = JSON.stringify(envelope);
    }
    return { status: 200, body: responseText, replayed: false, rateLimit };
  } catch (error) {
    if (idempotencyKey !== undefined) await releaseIdempotencyKey(db, key.id, idempotencyKey);
    if (isConstraintViolation(error, 'usage_within_quota')) throw quotaExceeded();
    throw error;
  }
}
