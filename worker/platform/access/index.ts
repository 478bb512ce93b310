/**
 * The one access policy: which scope or workspace role may take which action, and which provider
 * states and kinds may take which provider action. Pure data; the guards of identity and the
 * provider gate apply it.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  KNOWN_SCOPES,
  SCOPE_MEANINGS,
  type Scope,
  type ProviderAction,
  providerRefusal,
  roleMay,
  scopeFor,
  scopeSchema,
  type WorkspaceAction,
} from './policy';
