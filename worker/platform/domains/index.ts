/**
 * The domain catalog (docs/design/providers-and-leads.md): the domains executions, channels and providers name.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  assertKnownDomain,
  createDomain,
  domainForText,
  type DomainEntry,
  type LeadPrice,
  listDomainEntries,
  listDomains,
  updateDomain,
} from './service';
