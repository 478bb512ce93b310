/**
 * The brain core (SPEC.md: execution, routing, judgement, risk control, memory). It takes a
 * plain description of a demand, reads what it needs through its ports, and returns a plan.
 * It never sees Hono, drizzle or HTTP: the platform core turns the plan into rows, in one
 * D1 batch with the execution, its audit record and its usage charge.
 */
import { planLeadPath } from './routing';
import type { BrainInput, BrainPlan, BrainPorts } from './types';

export type * from './types';
export { demandReference } from './routing';

/** Plans one execution. The domain has been admitted by the platform core (it is in the catalog). */
export async function planExecution(input: BrainInput, ports: BrainPorts): Promise<BrainPlan> {
  return planLeadPath(input, ports);
}
