/**
 * Provisioning requests: a workspace owner asks for an API key or a webhook endpoint, a platform
 * admin decides, and the owner sees the key once.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  decideProvisioning,
  type DecisionDeps,
  listPendingRequests,
  listWorkspaceRequests,
  PENDING_PER_WORKSPACE,
  requestProvisioning,
  revealProvisionedSecret,
} from './service';
export {
  provisioningDecisionSchema,
  type ProvisioningRequestBody,
  provisioningRequestBodySchema,
  type ProvisioningRequestView,
} from './schemas';
