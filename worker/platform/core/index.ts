/**
 * The execution core (docs/design/execution.md): the one pipeline every demand runs through, whoever
 * brings it, and the source adapters that say what differs between callers.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { runExecution } from './execute';
export { purgeExpiredIdempotencyRecords, requestFingerprint } from './idempotency';
export { executeRequestSchema, executeResponseSchema, type ExecuteRequest, type ExecuteResponse } from './schemas';
export { apiSource } from './sources/api';
export { runIntake } from './sources/channel';
export { runEmailReply } from './sources/email-reply';
export type {
  Demand,
  ExecutionCall,
  ExecutionContext,
  ExecutionOutcome,
  RecordedAnswer,
  Source,
} from './sources/source';
