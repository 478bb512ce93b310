/**
 * Providers: onboarding and its gate, the workbench and the lead's operations: the cases, in one
 * workerd. Each test file starts a runtime of its own (about 3 s of CPU), so the area's cases
 * share one and stay in files by subject (*.cases.ts).
 */
import './providers.cases';
import './provider-gate.cases';
import './workbench.cases';
import './lead-operations.cases';
