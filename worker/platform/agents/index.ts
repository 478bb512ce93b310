/**
 * Agents and robots as the brain's supply (docs/design/agents-and-robots.md): their cards, the calls to them
 * (signed, through the egress guard), their attempts, breaker, health and signing secrets.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { fetchAgentCard, sameCalledInterface } from './card';
export { callProvider, type CallTarget } from './invoke';
export {
  type AgentCardSummary,
  agentCardSummarySchema,
  type AgentHealth,
  agentHealthSchema,
  signingSecretSchema,
  type StoredAgentCard,
} from './schemas';
export {
  type AgentSupply,
  agentSupplyOf,
  agentSupplyQuery,
  attemptWrites,
  conversationMemoryOf,
  conversationMemoryQuery,
  forgetAgentSupply,
  hasAgentSupply,
  requireSecretsKey,
} from './service';
export { agentHealth, rotateSigningSecret, signingSecretOnApproval } from './operations';
