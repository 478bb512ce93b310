/**
 * Tenants: provisioning, channels and their languages, insights, and the admin's pages: the cases,
 * in one workerd. Each test file starts a runtime of its own (about 3 s of CPU), so the area's
 * cases share one and stay in files by subject (*.cases.ts). They share its clock too: the ones
 * that move it forward (admin) run last.
 */
import './provisioning.cases';
import './channels.cases';
import './languages.cases';
import './insights.cases';
import './shards.cases';
import './admin.cases';
import './moves.cases';
import './shard-isolation.cases';
