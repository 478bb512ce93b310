/**
 * Webhooks: the cases, in one workerd. Each test file starts a runtime of its own (about 3 s of
 * CPU), so the area's cases share one and stay in files by intent (webhooks.*.cases.ts); the hooks
 * they all need are here, once.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { installRemotes } from './agent-helpers';
import './webhooks.happy.cases';
import './webhooks.security.cases';
import './webhooks.reliability.cases';
// Last: it moves the shared clock forward (days of retries), and the others sign with the real time.
import './webhooks.error.cases';

beforeEach(() => installRemotes());
afterEach(() => vi.restoreAllMocks());
