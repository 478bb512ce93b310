import { describe, expect, it } from 'vitest';
import { assessDemand, mayCallAgents, planLeadPath } from './routing';
import type { AssessPorts, BrainInput } from './types';

const input = (overrides: Partial<BrainInput> = {}): BrainInput => ({
  executionId: 'exe_1',
  requestId: 'req_1',
  traceId: 'trace',
  workspaceId: 'ws_1',
  domain: 'consultation',
  text: 'Which CRM should we buy?',
  grantedScopes: ['execute', 'agents:invoke', 'leads:write', 'memory:write'],
  origin: { kind: 'channel', trigger: 'consultation', contactKnown: false, asksForContact: true, honeypot: false },
  now: 1_800_000_000_000,
  agentChainMs: 20_000,
  offerFirst: 3,
  ...overrides,
});

const conversation = (personHasIt: boolean) => ({
  demandId: 'dem_1',
  leadId: 'lead_1',
  disposition: 'routed' as const,
  personHasIt,
});

const ports: AssessPorts = {
  workspacePolicy: async () => ({ blockedTerms: [] }),
  expertPool: async () => ({ anyTopic: 2, byTopic: { crm: 3 } }),
};

describe('routing', () => {
  it('asks agents until a person claims the lead: an open lead (after a decline) does not silence them', () => {
    expect(mayCallAgents(input())).toBe(true);
    expect(mayCallAgents(input({ conversation: conversation(false) }))).toBe(true);
    expect(mayCallAgents(input({ conversation: conversation(true) }))).toBe(false);
  });

  it('never asks agents without the scope, or when the visitor asked for a person', () => {
    expect(mayCallAgents(input({ grantedScopes: ['execute', 'leads:write'] }))).toBe(false);
    for (const trigger of ['handoff', 'lead_capture'] as const) {
      const origin = { kind: 'channel' as const, trigger, contactKnown: false, asksForContact: true, honeypot: false };
      expect(mayCallAgents(input({ origin }))).toBe(false);
    }
    expect(mayCallAgents(input({ origin: { kind: 'api' } }))).toBe(true);
  });

  it('assesses: the topic, the urgency, the experts who match, a new or continued demand', async () => {
    const fresh = await assessDemand(input({ offerFirst: 10 }), ports);
    expect(fresh).toMatchObject({ tryAgents: true, disposition: 'routed', topic: 'crm', matchedProviders: 5 });
    // matched_providers counts the first wave: at most offer_first of them.
    expect((await assessDemand(input(), ports)).matchedProviders).toBe(3);
    expect(fresh.demand.action).toBe('create');
    const continued = await assessDemand(input({ conversation: conversation(true) }), ports);
    expect(continued).toMatchObject({ tryAgents: false, demand: { action: 'continue', id: 'dem_1' } });
  });

  it('a held conversation stays held, and is offered to no agent', async () => {
    const held = await assessDemand(
      input({ conversation: { ...conversation(false), disposition: 'held' }, text: 'Fine now' }),
      ports,
    );
    expect(held).toMatchObject({ disposition: 'held', tryAgents: false });
  });

  it('sends a claimed conversation to its claimer: no automatic reply, no request for contact', async () => {
    const claimed = input({ conversation: conversation(true) });
    const plan = planLeadPath(claimed, await assessDemand(claimed, ports), []);
    expect(plan).toMatchObject({ toClaimer: true, askForContact: false, lead: { action: 'update', id: 'lead_1' } });
    const open = input();
    const first = planLeadPath(open, await assessDemand(open, ports), []);
    expect(first).toMatchObject({ toClaimer: false, askForContact: true, lead: { action: 'create' } });
    // A later question while the lead waits for a claim: the form again, until a contact is left.
    const waiting = input({ conversation: conversation(false) });
    const later = planLeadPath(waiting, await assessDemand(waiting, ports), []);
    expect(later).toMatchObject({ toClaimer: false, askForContact: true, lead: { action: 'update', id: 'lead_1' } });
  });
});
