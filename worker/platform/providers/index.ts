/**
 * Providers (docs/design/providers-and-leads.md): experts, agents and robots, their profiles, review and state
 * machine, the provider gate, and the provider API.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { agentProviderRoutes } from './agent-routes';
export { providerRefusalError, requireProvider, requireProviderRow } from './gate';
export { providerProfileRoutes } from './routes';
export {
  approvalSchema,
  domainSlugSchema,
  type ProfileInput,
  preferencesPatchSchema,
  type Preferences,
  preferencesSchema,
  profileInputSchema,
  type ProviderProfileView,
  reviewNoteSchema,
} from './schemas';
export { describeProvider, providerOf, type ProviderRow } from './records';
export { saveProviderProfile } from './profile';
export { preferencesOf, savePreferences } from './preferences';
export { countProvidersByStatus, listProvidersForReview, providerForReview, reviewProvider } from './review';
export { expertPool, expertsForLead, forgetExpertPools, type LeadScope, type RoutingPool } from './pool';
