/**
 * The gateway: the envelope, its limits and races, events, the database, A2A and the entry points:
 * the cases, in one workerd. Each test file starts a runtime of its own (about 3 s of CPU), so the
 * area's cases share one and stay in files by subject (*.cases.ts). They share its clock too: the
 * ones that move it forward (envelope, entry-points) run last.
 */
import './a2a.cases';
import './db.cases';
import './events.cases';
import './limits.cases';
import './races.cases';
import './envelope.cases';
import './entry-points.cases';
