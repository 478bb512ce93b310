/**
 * Organisations over several D1 databases (docs/design/scale.md#the-layout): where each one is
 * (the directory's map, cached in the isolate), where a new one goes, and entering one's shard.
 * The routing of each statement to its database is lib/shards/ (every unit of work uses it).
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  directoryEntry,
  type EntryKind,
  enterBy,
  enterContractOwner,
  enterEscrowOwner,
  enterOrganization,
  enterWhereFound,
  forgetPlacements,
  handleInWorkspace,
  holdsOrganizations,
  inDirectory,
  withinWorkspace,
  MOVING_PLACEMENT_CACHE_MS,
  PLACEMENT_CACHE_MS,
  type Placed,
  placeAll,
  placementsOf,
  readAcrossShards,
  readEveryShard,
  shardOfOrganization,
  sweepEachDatabase,
} from './directory';
export { databasesHolding } from '../../lib/shards/holding';
export { chooseShard, placeOrganization, shardSizes } from './placement';
