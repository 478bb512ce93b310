/**
 * The records of one execution (docs/design/execution.md): its row and its one audit record, written
 * in its batch, and the envelope it answers with (step 8).
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { ExecutedPlan } from '../../brain';
import type { ContractCharge, MeterQuantities } from '../billing';
import { type Database, insertRows, schema } from '../../lib/db';
import { EXECUTIONS_METER } from '../../vocabulary';
import { scopeBits } from '../access/schemas';
import { resultOf } from './replies';
import type { ExecuteResponse, UsageApplication } from './schemas';
import type { Admitted, Demand, ExecutionContext } from './sources/source';

const { executions, auditLog } = schema;

/** What the execution's own records say. */
export interface RecordInput {
  executionId: string;
  auditId: string;
  admitted: Admitted;
  demand: Demand;
  context: ExecutionContext;
  /** The caller's idempotency key (API keys), which a completed execution names. */
  idempotencyKey: string | null;
  /**
   * `completed`, with the record it produced; or `failed`: no agent answered and it could not
   * become a lead, so only the execution, its audit record and its attempts are kept (the caller's
   * execution id leads somewhere), and nothing is charged.
   */
  outcome: { status: 'completed'; sourceRecord: string } | { status: 'failed'; attempts: number };
}

/**
 * An execution's audit entry id: its own id under the audit prefix, so the entry of a completed
 * execution is the execution row itself (audit/service.ts reads it there) and sorts with the log.
 */
export function executionAuditId(executionId: string): string {
  return `aud_${executionId.slice('exe_'.length)}`;
}

/**
 * The execution row, which is also the audit entry of a completed execution (who, with which key
 * and scopes, under which request, when, and what it made: nothing is copied into audit_log); a
 * failed one, which made nothing, gets its own audit row with the reason.
 */
export function executionRecordWrites(
  db: Database,
  { executionId, auditId, admitted, demand, context, idempotencyKey, outcome }: RecordInput,
): BatchItem<'sqlite'>[] {
  const completed = outcome.status === 'completed';
  const sourceRecord = completed ? outcome.sourceRecord : executionId;
  const executionRow = insertRows(db, executions, [
    {
      id: executionId,
      workspaceId: admitted.workspaceId,
      keyId: admitted.key?.id ?? null,
      actorKind: admitted.actorKind,
      actorId: admitted.actorId,
      domain: demand.domain,
      status: outcome.status,
      requestId: context.outputRequestId,
      traceId: context.traceId,
      // A failed execution frees its idempotency key, so it does not name it.
      idempotencyKey: completed ? idempotencyKey : null,
      projectId: context.correlation?.projectId ?? null,
      userId: context.correlation?.userId ?? null,
      sessionId: context.correlation?.sessionId ?? null,
      scopeBits: scopeBits(admitted.grantedScopes),
      exactBridge: context.exactBridge ?? null,
      sourceRecord,
      auditId,
      via: context.via ?? null,
      // The gateway's own request id, when the caller named the request otherwise.
      gatewayRequestId: context.requestId === context.outputRequestId ? null : context.requestId,
      createdAt: context.now,
    },
  ]);
  if (completed) return [executionRow];
  return [
    executionRow,
    insertRows(db, auditLog, [
      {
        id: auditId,
        organizationId: admitted.organizationId,
        workspaceId: admitted.workspaceId,
        actorKind: admitted.actorKind,
        actorId: admitted.actorId,
        keyId: admitted.key?.id ?? null,
        action: 'execution.failed',
        targetId: executionId,
        requestId: context.requestId,
        traceId: context.traceId,
        metadata: {
          domain: demand.domain,
          reason: 'agent_unavailable',
          attempts: outcome.attempts,
          ...(context.via ? { via: context.via } : {}),
        },
        createdAt: context.now,
      },
    ]),
  ];
}

/** The envelope of docs/design/execution.md, step 8. */
export function envelopeOf(
  ids: { executionId: string; auditId: string },
  admitted: Admitted,
  demand: Demand,
  context: ExecutionContext,
  plan: ExecutedPlan,
  reply: string,
  billing: { charge: ContractCharge | null; quantities: MeterQuantities },
): ExecuteResponse {
  const contract = billing.charge?.contract;
  const { executionId, auditId } = ids;
  const usage: UsageApplication = { meter: EXECUTIONS_METER, quantity: 1, unit: 'execution', source: 'platform' };
  // A placeholder keeps `remaining` in its place; the batch fills in the exact value.
  if (admitted.key && admitted.key.monthlyQuota !== null)
    Object.assign(usage, { limit: admitted.key.monthlyQuota, remaining: 0 });
  return {
    output: {
      request_id: context.outputRequestId,
      trace_id: context.traceId,
      status: 'completed',
      execution_id: executionId,
      domain: demand.domain,
      result: resultOf(plan, reply),
    },
    // The execution's own charge first (the batch fills in its `remaining`), then the contract's
    // meters (the batch fills in what is left and what was charged), then what a robot reported
    // about itself, marked as such.
    usage_applications: [
      usage,
      ...(billing.charge?.lines(billing.quantities) ?? []),
      ...plan.reportedUsage.map((line) => ({
        ...line,
        source: 'provider' as const,
        // Only a provider reports usage (the knowledge reports none).
        provider_id: plan.handledBy?.providerId ?? '',
      })),
    ],
    exact_bridge: {
      contract_id: contract?.id ?? context.exactBridge?.contract_id ?? '',
      escrow_id: contract?.escrowId ?? context.exactBridge?.escrow_id ?? '',
      org_id: admitted.organizationId,
      organization_id: admitted.organizationId,
      workspace_id: admitted.workspaceId,
      audit_id: auditId,
      source_layer: 'brain',
      source_record: plan.sourceRecord,
    },
  };
}

/** What an execution moves on each metered meter: itself, the lead it creates, the agent's answer. */
export function meterQuantities(plan: ExecutedPlan): MeterQuantities {
  return {
    executions: 1,
    leads: plan.lead?.action === 'create' ? 1 : 0,
    agent_calls: plan.handledBy ? 1 : 0,
  };
}
