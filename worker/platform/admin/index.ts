/**
 * Provisioning (docs/design/identity-and-access.md): the internal admin API under /api/admin/, for
 * administrators only, kept out of the public description.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { adminRoutes } from './routes';
