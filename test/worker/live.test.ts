/**
 * Live conversation: the cases, in one workerd. Each test file starts a runtime of its own (about 3 s of
 * CPU), so the area's cases share one and stay in files by intent (live.*.cases.ts); the hooks
 * they all need are here, once.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { installRemotes } from './agent-helpers';
import './live.happy.cases';
import './live.security.cases';

beforeEach(() => installRemotes());
afterEach(() => vi.restoreAllMocks());
