/**
 * Demands and leads (docs/design/providers-and-leads.md): what a conversation asks, and the lead experts
 * claim and work in the workbench.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { workbenchRoutes } from './routes';
export {
  type LeadDetail,
  type LeadStatus,
  leadStatusBodySchema,
  leadStatusSchema,
  type LeadView,
  replyBodySchema,
} from './schemas';
export { changeLeadStatus, leadDetailForProvider, listLeadsForProvider } from './workbench';
export { claimLead, enterLeadOrganization } from './claim';
export { finishOpenReservations, RESERVATION_GRACE_MS } from './claim-reservations';
export { sweepLeadTimers, type TimerSweep } from './timers';
export { releaseHeldLeads } from './held-leads';
export {
  type DemandOrigin,
  type LeadOperations,
  type VisitorContact,
  leadCreatedData,
  leadSummarySource,
  planWrites,
} from './intake-writes';
export { type IntakeEntry, listChannelIntake } from './intake-view';
export {
  type ClaimedConversation,
  claimedConversation,
  REPLIES_PER_MINUTE,
  replyToLead,
  WORKING_STATUSES,
} from './conversation';
