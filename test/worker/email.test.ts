/**
 * Email: the cases, in one workerd. Each test file starts a runtime of its own (about 3 s of
 * CPU), so the area's cases share one and stay in files by intent (email.*.cases.ts); the hooks
 * they all need are here, once.
 */
import { afterEach, vi } from 'vitest';
import './email.happy.cases';
import './email.error.cases';
import './email.security.cases';

afterEach(() => vi.restoreAllMocks());
