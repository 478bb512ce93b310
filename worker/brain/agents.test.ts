import { describe, expect, it } from 'vitest';
import { runAgents } from './agents';
import type { AgentAnswer, AgentCandidate, BrainInput, AgentPorts } from './types';

const candidate = (providerId: string, priority = 0): AgentCandidate => ({
  providerId,
  kind: 'agent',
  name: providerId,
  priority,
  failuresLastHour: 0,
  openUntil: 0,
});

const input = (overrides: Partial<BrainInput> = {}): BrainInput => ({
  executionId: 'exe_1',
  requestId: 'req_1',
  traceId: 'trace',
  workspaceId: 'ws_1',
  domain: 'faq',
  text: 'hello',
  grantedScopes: ['execute', 'agents:invoke', 'leads:write'],
  origin: { kind: 'api' },
  now: 0,
  agentChainMs: 20_000,
  offerFirst: 3,
  ...overrides,
});

/** Ports over a fake clock: each agent takes the time its script says, cut to what it is given. */
function portsWith(script: Record<string, { takesMs: number; answer: AgentAnswer }>) {
  let clock = 0;
  const calls: Array<{ providerId: string; withinMs: number }> = [];
  const ports: AgentPorts = {
    conversationMemory: async () => [],
    now: () => clock,
    async invokeAgent(providerId, _call, withinMs) {
      calls.push({ providerId, withinMs });
      const { takesMs, answer } = script[providerId]!;
      if (takesMs > withinMs) {
        clock += withinMs;
        return {
          ok: false,
          outcome: 'timeout',
          httpStatus: null,
          durationMs: withinMs,
          error: 'No answer within the timeout.',
        };
      }
      clock += takesMs;
      return answer;
    },
  };
  return { ports, calls, elapsed: () => clock };
}

const hangs = {
  takesMs: 10_000,
  answer: {
    ok: false,
    outcome: 'timeout',
    httpStatus: null,
    durationMs: 10_000,
    error: 'No answer within the timeout.',
  } as AgentAnswer,
};
const answers = {
  takesMs: 100,
  answer: { ok: true, reply: 'Hi', output: {}, usage: [], httpStatus: 200, durationMs: 100 } as AgentAnswer,
};

describe('the agent chain', () => {
  it(
    'ends at its total deadline: eight hanging agents cost 20 s, not 80 s, and no agent is called ' + 'after it',
    async () => {
      const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'];
      const { ports, calls, elapsed } = portsWith(Object.fromEntries(ids.map((id) => [id, hangs])));
      const run = await runAgents(
        input(),
        ids.map((id) => candidate(id)),
        ports,
      );
      expect(run.answered).toBeUndefined();
      expect(elapsed()).toBe(20_000);
      expect(calls.map((call) => call.withinMs)).toEqual([20_000, 10_000]);
      expect(run.attempts.map((attempt) => attempt.outcome)).toEqual(['timeout', 'timeout']);
    },
  );

  it('gives each agent only what is left of the deadline', async () => {
    const { ports, calls } = portsWith({ slow: { ...hangs, takesMs: 15_000 }, next: answers });
    const run = await runAgents(input({ agentChainMs: 18_000 }), [candidate('slow', 2), candidate('next', 1)], ports);
    expect(calls).toEqual([
      { providerId: 'slow', withinMs: 18_000 },
      { providerId: 'next', withinMs: 3_000 },
    ]);
    expect(run.answered?.candidate.providerId).toBe('next');
  });

  it('stops at the first answer, in the stable order', async () => {
    const { ports, calls } = portsWith({ low: answers, high: answers });
    const run = await runAgents(input(), [candidate('low', 0), candidate('high', 5)], ports);
    expect(calls.map((call) => call.providerId)).toEqual(['high']);
    expect(run.attempts).toMatchObject([{ providerId: 'high', outcome: 'success' }]);
  });
});
