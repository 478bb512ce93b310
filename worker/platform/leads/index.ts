/**
 * Demands and leads (PRODUCT.md sections 5 and 9): what a conversation asks, and the lead experts
 * claim and work in the workbench.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { workbenchRoutes } from './routes';
export { type LeadDetail, type LeadStatus, leadStatusSchema, type LeadView } from './schemas';
export {
  changeLeadStatus,
  claimLead,
  type DemandOrigin,
  type VisitorContact,
  type IntakeEntry,
  leadCreatedData,
  leadDetailForProvider,
  listChannelIntake,
  listLeadsForProvider,
  planWrites,
} from './service';
