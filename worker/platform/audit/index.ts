/**
 * The audit log: one record per execution and per change a person, key or the system makes, written
 * in the batch of the change it records, and read by administrators.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { type AuditContext, auditInsert, auditInsertWhere, listAuditLog } from './service';
