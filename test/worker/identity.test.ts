/**
 * Identity and access: who may do what, signing in, memberships and accounts: the cases, in one
 * workerd. Each test file starts a runtime of its own (about 3 s of CPU), so the area's cases
 * share one and stay in files by subject (*.cases.ts).
 */
import './access.cases';
import './auth-matrix.cases';
import './auth.cases';
import './membership.cases';
import './accounts.cases';
import './accounts.hardening.cases';
