import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createActiveAgent,
  installRemotes,
  messageResult,
  newDomain,
  partsOf,
  remotes,
  rpcAgent,
  taskResult,
} from './agent-helpers';
import { createTenant, execute, executeBody, json, type Tenant } from './helpers';
import { createActiveExpert, createChannel, sessionCall, SITE, type TestProvider } from './provider-helpers';
import { call } from './helpers';
import { platformDb } from './platform-db';

const ROUNDS = 4;
const BURST = 20;

const count = async (sql: string, ...values: unknown[]) =>
  (await platformDb
    .prepare(sql)
    .bind(...values)
    .first<{ n: number }>())!.n;

let tenant: Tenant;
let domain: string;
beforeAll(async () => {
  tenant = await createTenant({
    scopes: [
      'execute',
      'leads:write',
      'agents:invoke',
      'memory:read',
      'memory:write',
      'channels:write',
      'channels:read',
    ],
  });
});
beforeEach(async () => {
  installRemotes();
});
afterEach(() => vi.restoreAllMocks());

/** A domain whose agent answers questions about opening hours and declines everything else. */
async function domainWithHoursAgent(): Promise<string> {
  const created = await newDomain('races');
  const origin = `https://hours-${created}.example.com`;
  await createActiveAgent(origin, { domain: created });
  remotes.set(
    `${origin}/a2a`,
    rpcAgent((rpc) =>
      /hours/i.test(partsOf(rpc).text ?? '') ? messageResult('We are open 9 to 5.') : taskResult('TASK_STATE_REJECTED'),
    ),
  );
  return created;
}

beforeAll(async () => {
  installRemotes();
  domain = await domainWithHoursAgent();
  await createActiveExpert({ domains: [domain] });
  vi.restoreAllMocks();
});

describe('one lead per conversation', () => {
  it(
    `${BURST} concurrent turns after an agent-answered first turn make exactly one lead, in each of ${ROUNDS} ` +
      `rounds (API)`,
    async () => {
      // The stubs live per test: install this domain's agent again.
      const origin = (await platformDb
        .prepare(
          "SELECT json_extract(agent_card, '$.summary.endpoint') AS endpoint FROM providers p JOIN provider_domains " +
            'd ON ' +
            "d.provider_id = p.id WHERE d.domain = ? AND p.kind = 'agent'",
        )
        .bind(domain)
        .first<{ endpoint: string }>())!.endpoint;
      remotes.set(
        origin,
        rpcAgent((rpc) =>
          /hours/i.test(partsOf(rpc).text ?? '')
            ? messageResult('We are open 9 to 5.')
            : taskResult('TASK_STATE_REJECTED'),
        ),
      );
      for (let round = 0; round < ROUNDS; round++) {
        const sessionId = `lead-race-${round}-${Math.random().toString(36).slice(2)}`;
        const first = await json(
          await execute(
            tenant.token,
            executeBody({ domain, session_id: sessionId, text: 'What are your opening hours?' }),
          ),
        );
        expect(first.output.result.handled_by).toBeDefined();
        const answers = await Promise.all(
          Array.from({ length: BURST }, (_, index) =>
            execute(
              tenant.token,
              executeBody({ domain, session_id: sessionId, text: `I need a person, please (${index}).` }),
            ),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(BURST).fill(200));
        const envelopes = await Promise.all(answers.map((answer) => json(answer)));
        const conversation = (await platformDb
          .prepare('SELECT id, lead_id FROM conversations WHERE workspace_id = ? AND external_session_id = ?')
          .bind(tenant.workspaceId, sessionId)
          .first<{ id: string; lead_id: string }>())!;
        expect(await count('SELECT COUNT(*) AS n FROM leads WHERE conversation_id = ?', conversation.id)).toBe(1);
        expect(await count('SELECT COUNT(*) AS n FROM demands WHERE conversation_id = ?', conversation.id)).toBe(1);
        expect(
          await count(
            "SELECT COUNT(*) AS n FROM events WHERE type = 'lead.created' AND json_extract(data, '$.lead_id') = ?",
            conversation.lead_id,
          ),
        ).toBe(1);
        // Every answer names the one lead, and the one reference.
        expect(new Set(envelopes.map((envelope) => envelope.output.result.lead_id))).toEqual(
          new Set([conversation.lead_id]),
        );
        expect(new Set(envelopes.map((envelope) => envelope.output.result.reference))).toEqual(
          new Set([first.output.result.reference]),
        );
      }
    },
  );

  it(`the same burst through the widget makes exactly one lead, in each of ${ROUNDS} rounds`, async () => {
    const origin = (await platformDb
      .prepare(
        "SELECT json_extract(agent_card, '$.summary.endpoint') AS endpoint " +
          'FROM providers p JOIN provider_domains d ON ' +
          "d.provider_id = p.id WHERE d.domain = ? AND p.kind = 'agent'",
      )
      .bind(domain)
      .first<{ endpoint: string }>())!.endpoint;
    remotes.set(
      origin,
      rpcAgent((rpc) =>
        /hours/i.test(partsOf(rpc).text ?? '')
          ? messageResult('We are open 9 to 5.')
          : taskResult('TASK_STATE_REJECTED'),
      ),
    );
    const channelKey = await createChannel(tenant.token, { domain });
    for (let round = 0; round < ROUNDS; round++) {
      const ip = `203.0.113.${100 + round}`;
      const say = (body: Record<string, unknown>) =>
        call(`/api/public/widget/${channelKey}/intake`, { body, headers: { Origin: SITE, 'CF-Connecting-IP': ip } });
      const first = await json(await say({ message: { text: 'What are your opening hours?' } }));
      expect(first.answered_by).toBeDefined();
      // Plain messages go to the agent first (which declines them), so all of them read "no lead yet".
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, index) =>
          say({
            session_id: first.session_id,
            message: { text: `Can I talk to someone? (${index})` },
            contact: { email: 'visitor@example.com' },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(BURST).fill(200));
      const bodies = await Promise.all(answers.map((answer) => json(answer)));
      const leadIds = new Set(bodies.map((body) => body.lead_id));
      expect(leadIds.size, JSON.stringify(bodies.slice(0, 3))).toBe(1);
      expect(
        await count(
          'SELECT COUNT(*) AS n FROM leads WHERE id IN (SELECT lead_id FROM conversations WHERE lead_id = ?)',
          [...leadIds][0],
        ),
      ).toBe(1);
      const conversationId = (await platformDb
        .prepare('SELECT conversation_id FROM leads WHERE id = ?')
        .bind([...leadIds][0])
        .first<{ conversation_id: string }>())!.conversation_id;
      expect(await count('SELECT COUNT(*) AS n FROM leads WHERE conversation_id = ?', conversationId)).toBe(1);
    }
  });
});

describe('concurrent first calls of a new session_id', () => {
  it(`${BURST} at once: no 5xx, one conversation, one demand, each call a turn of it (${ROUNDS} rounds)`, async () => {
    const origin = (await platformDb
      .prepare(
        "SELECT json_extract(agent_card, '$.summary.endpoint') AS endpoint FROM providers p JOIN provider_domains " +
          'd ON ' +
          "d.provider_id = p.id WHERE d.domain = ? AND p.kind = 'agent'",
      )
      .bind(domain)
      .first<{ endpoint: string }>())!.endpoint;
    remotes.set(
      origin,
      rpcAgent((rpc) =>
        /hours/i.test(partsOf(rpc).text ?? '')
          ? messageResult('We are open 9 to 5.')
          : taskResult('TASK_STATE_REJECTED'),
      ),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const sessionId = `first-calls-${round}-${Math.random().toString(36).slice(2)}`;
      // Each is answered by the agent after a network round trip, so all of them read "no conversation yet".
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, index) =>
          execute(
            tenant.token,
            executeBody({
              domain,
              session_id: sessionId,
              required_scopes: ['execute', 'agents:invoke', 'memory:write'],
              text: `Turn ${index}: your opening hours?`,
            }),
          ),
        ),
      );
      const texts = await Promise.all(answers.map((answer) => answer.text()));
      expect(
        answers.map((answer) => answer.status),
        texts.find((text) => !text.startsWith('{"output"')),
      ).toEqual(Array(BURST).fill(200));
      const conversations = await platformDb
        .prepare('SELECT id FROM conversations WHERE workspace_id = ? AND external_session_id = ?')
        .bind(tenant.workspaceId, sessionId)
        .all<{ id: string }>();
      expect(conversations.results).toHaveLength(1);
      const conversationId = conversations.results[0]!.id;
      expect(await count('SELECT COUNT(*) AS n FROM demands WHERE conversation_id = ?', conversationId)).toBe(1);
      // Every turn is in the one conversation, each answered once by the agent.
      expect(
        await count(
          "SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND role = 'visitor'",
          conversationId,
        ),
      ).toBe(BURST);
      expect(
        await count("SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND role = 'agent'", conversationId),
      ).toBe(BURST);
      expect(texts.every((text) => JSON.parse(text).output.result.handled_by)).toBe(true);
      // No agent was called twice for one execution.
      expect(
        await count(
          'SELECT COUNT(*) AS n FROM agent_attempts WHERE execution_id IN (SELECT id FROM executions WHERE ' +
            'session_id = ?)',
          sessionId,
        ),
      ).toBe(BURST);
      expect(new Set(texts.map((text) => JSON.parse(text).output.result.demand_id)).size).toBe(1);
    }
  });
});

describe('concurrent changes of one lead', () => {
  let expert: TestProvider;
  beforeAll(async () => {
    expert = await createActiveExpert({ domains: ['consultation'] });
  });

  const newLead = async () =>
    (
      await json(
        await execute(
          tenant.token,
          executeBody({ required_scopes: ['execute', 'leads:write'], text: 'Bookkeeping help, please.' }),
        ),
      )
    ).output.result.lead_id as string;
  const historyOf = (leadId: string, to: string) =>
    count('SELECT COUNT(*) AS n FROM lead_events WHERE lead_id = ? AND to_status = ?', leadId, to);
  const eventsOf = (leadId: string, to: string) =>
    count(
      "SELECT COUNT(*) AS n FROM events WHERE type = 'lead.status_changed' AND json_extract(data, '$.lead_id') = ? " +
        "AND json_extract(data, '$.to') = ?",
      leadId,
      to,
    );

  it(`10 identical moves to contacted write one history row and one event (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const leadId = await newLead();
      expect(
        (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' })).status,
      ).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/status`, {
            body: { status: 'contacted' },
          }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
      expect(await historyOf(leadId, 'contacted')).toBe(1);
      expect(await eventsOf(leadId, 'contacted')).toBe(1);
      expect(
        await count(
          "SELECT COUNT(*) AS n FROM audit_log WHERE target_id = ? AND action = 'lead.status_changed'",
          leadId,
        ),
      ).toBe(1);
    }
  });

  it(`10 concurrent releases write one qualified → open row and one event (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const leadId = await newLead();
      await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' });
      for (const status of ['contacted', 'qualified'])
        expect(
          (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/status`, { body: { status } }))
            .status,
        ).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/status`, { body: { status: 'open' } }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
      expect(await historyOf(leadId, 'open')).toBe(2); // the creation, and this one release
      expect(await eventsOf(leadId, 'open')).toBe(1);
    }
  });

  it('claim and release cannot repeat to read the contact again; each reveal is audited and counted', async () => {
    const leadId = await newLead();
    const before = await platformDb
      .prepare('SELECT contact_reveals AS n FROM providers WHERE id = ?')
      .bind(expert.providerId)
      .first<{ n: number }>();
    const claim = () => sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' });
    expect((await claim()).status).toBe(200);
    const release = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/status`, {
      body: { status: 'open' },
    });
    expect(release.status).toBe(200);
    // The security probe's loop (claim, release, claim… each reading the contact) stops here for 24 hours.
    for (let round = 0; round < 3; round++) {
      const again = await claim();
      expect(again.status).toBe(409);
      expect((await again.json<{ code: string }>()).code).toBe('recently_released');
    }
    const after = await platformDb
      .prepare('SELECT contact_reveals AS n FROM providers WHERE id = ?')
      .bind(expert.providerId)
      .first<{ n: number }>();
    expect(after!.n - before!.n).toBe(1);
    const reveals = await platformDb
      .prepare(
        'SELECT actor_kind, metadata FROM audit_log WHERE target_id = ? AND ' +
          "action = 'lead.contact_revealed' ORDER BY id",
      )
      .bind(leadId)
      .all<{ actor_kind: string; metadata: string }>();
    expect(reveals.results).toHaveLength(1);
    for (const reveal of reveals.results) {
      expect(reveal.actor_kind).toBe('user');
      expect(JSON.parse(reveal.metadata)).toEqual({ provider_id: expert.providerId });
    }
  });
});
