/**
 * The data lifecycle (docs/design/data-lifecycle.md): how long each class of record stays, the R2
 * archive that rows are written to before they leave D1, and the housekeeping sweep that does it.
 * This file is the module's face.
 */
export {
  type ArchiveBucket,
  type ArchiveClass,
  archiveKey,
  dayOf,
  gunzipNdjson,
  gzipNdjson,
  writeArchive,
} from './archive';
export { expiredBefore, type Retention, RETENTION_DEFAULT_DAYS, retentionFrom, SWEEP_ROW_LIMIT } from './retention';
export { archiveExpired, type SweepOutcome } from './sweep';
export {
  conversationRetention,
  MAX_CONVERSATION_DAYS,
  MIN_CONVERSATION_DAYS,
  setConversationRetention,
} from './conversations';
export { ERASED, WITHDRAWN_NOTE } from './erasure';
export { EXPORT_PART_BYTES } from './export';
export {
  EXPORT_KEEP_MS,
  expireOldExports,
  failPrivacyRequest,
  PRIVACY_STUCK_AFTER_MS,
  requeueStuckPrivacyRequests,
  PRIVACY_JOB_ATTEMPTS,
  privacyMessageSchema,
  privacyRequest,
  type PrivacyRow,
  recentPrivacyRequests,
  requestErasure,
  requestExport,
  runPrivacyRequest,
} from './privacy';
export { exportLink } from './export-links';
export { privacyRoutes } from './routes';
export { storageView, type TableSize } from './storage';
