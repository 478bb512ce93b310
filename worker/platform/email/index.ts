/**
 * Email (docs/design/email.md): the outbox, lead alerts and digests to experts, the visitor's
 * continuation, replies by email, unsubscribing, and the SMTP transport.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  billingNoticeInserts,
  continuationHold,
  accountEmailInsert,
  noticeInserts,
  platformAdmins,
  INSTANT_ALERTS_PER_HOUR,
  emailStatus,
  queueTestEmail,
  offerAlertInserts,
  unclaimedAlertInserts,
  takeCommittedEmails,
} from './outbox';
export {
  enqueueEmails,
  sendEmail,
  sendEmails,
  type SendDeps,
  type SendEmailsMessage,
  sendEmailsMessageSchema,
} from './send';
export { purgeOldEmails, sweepEmails } from './sweep';
export { maskAddress, parseMailbox, scrubAddresses } from './addresses';
export { type MailTransport, type OutgoingEmail, smtpTransport } from './transport';
export {
  fromTheVisitor,
  INBOUND_MAX_BYTES,
  readInboundReply,
  replyKeyOf,
  replyTarget,
  stripQuotedHistory,
} from './inbound';
export { type EmailLogEntry, emailLog } from './log';
export {
  applyUnsubscribe,
  readUnsubscribeToken,
  type UnsubscribeTarget,
  unsubscribeToken,
} from './unsubscribe';
