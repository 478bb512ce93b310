/**
 * Moving an organisation from one shard to another (docs/design/scale.md#moves): the admin's
 * `POST /api/admin/organizations/{id}/move` and `npm run admin -- move-organization`.
 */
export { advanceMove, type MoveReport } from './move';
export { MOVED_TABLES, NOT_MOVED, organizationRows } from './plan';
