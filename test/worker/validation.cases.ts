import { beforeAll, describe, expect, it } from 'vitest';
import { executeRequestSchema } from '../../worker/platform/core/schemas';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  execute,
  executeBody,
  expectProblem,
  json,
  writeFootprint,
  type Tenant,
} from './helpers';
import { sessionCall, signUpProvider } from './provider-helpers';

interface BodyCase {
  name: string;
  body: unknown;
  /** Pointers that must be named in `errors`. */
  pointers: string[];
  code?: string;
}

const valid = executeBody();
const without = (field: string) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== field));

const bodyCases: BodyCase[] = [
  { name: 'empty object', body: {}, pointers: ['/domain', '/execution_mode', '/required_scopes'] },
  { name: 'domain missing', body: without('domain'), pointers: ['/domain'] },
  { name: 'domain empty', body: { ...valid, domain: '' }, pointers: ['/domain'] },
  { name: 'domain blank', body: { ...valid, domain: '   ' }, pointers: ['/domain'] },
  { name: 'domain a number', body: { ...valid, domain: 42 }, pointers: ['/domain'] },
  {
    name: 'execution_mode async',
    body: { ...valid, execution_mode: 'async' },
    pointers: ['/execution_mode'],
    code: 'unsupported_execution_mode',
  },
  {
    name: 'execution_mode SYNC (case matters)',
    body: { ...valid, execution_mode: 'SYNC' },
    pointers: ['/execution_mode'],
    code: 'unsupported_execution_mode',
  },
  { name: 'execution_mode missing', body: without('execution_mode'), pointers: ['/execution_mode'] },
  { name: 'execution_mode a boolean', body: { ...valid, execution_mode: true }, pointers: ['/execution_mode'] },
  { name: 'required_scopes missing', body: without('required_scopes'), pointers: ['/required_scopes'] },
  { name: 'required_scopes a string', body: { ...valid, required_scopes: 'execute' }, pointers: ['/required_scopes'] },
  { name: 'required_scopes with a number', body: { ...valid, required_scopes: [1] }, pointers: ['/required_scopes/0'] },
  {
    name: 'required_scopes with an unknown scope',
    body: { ...valid, required_scopes: ['execute', 'root'] },
    pointers: ['/required_scopes/1'],
  },
  { name: 'neither text nor structured_input', body: without('text'), pointers: ['/text'] },
  { name: 'text a number', body: { ...valid, text: 123 }, pointers: ['/text'] },
  { name: 'text empty', body: { ...valid, text: '' }, pointers: ['/text'] },
  {
    name: 'structured_input an array',
    body: { ...without('text'), structured_input: [] },
    pointers: ['/structured_input'],
  },
  { name: 'structured_input a string', body: { ...valid, structured_input: 'x' }, pointers: ['/structured_input'] },
  { name: 'attachments an object', body: { ...valid, attachments: {} }, pointers: ['/attachments'] },
  {
    name: 'attachment without id and kind',
    body: { ...valid, attachments: [{}] },
    pointers: ['/attachments/0/attachment_id', '/attachments/0/kind'],
  },
  {
    name: 'attachment without kind',
    body: { ...valid, attachments: [{ attachment_id: 'a1' }] },
    pointers: ['/attachments/0/kind'],
  },
  {
    name: 'attachment with a bad url',
    body: { ...valid, attachments: [{ attachment_id: 'a1', kind: 'image', url: 'not a url' }] },
    pointers: ['/attachments/0/url'],
  },
  {
    name: 'attachment with a javascript: url',
    body: { ...valid, attachments: [{ attachment_id: 'a1', kind: 'image', url: 'javascript:alert(1)' }] },
    pointers: ['/attachments/0/url'],
  },
  {
    name: 'attachment metadata not an object',
    body: { ...valid, attachments: [{ attachment_id: 'a1', kind: 'image', metadata: 'x' }] },
    pointers: ['/attachments/0/metadata'],
  },
  {
    name: 'attachment with an unknown field',
    body: { ...valid, attachments: [{ attachment_id: 'a1', kind: 'image', size: 3 }] },
    pointers: ['/attachments/0/size'],
  },
  {
    name: 'too many attachments',
    body: { ...valid, attachments: Array.from({ length: 21 }, (_, i) => ({ attachment_id: `a${i}`, kind: 'file' })) },
    pointers: ['/attachments'],
  },
  { name: 'exact_bridge a string', body: { ...valid, exact_bridge: 'x' }, pointers: ['/exact_bridge'] },
  { name: 'exact_bridge an array', body: { ...valid, exact_bridge: [] }, pointers: ['/exact_bridge'] },
  {
    name: 'exact_bridge.contract_id a number',
    body: { ...valid, exact_bridge: { contract_id: 5 } },
    pointers: ['/exact_bridge/contract_id'],
  },
  { name: 'unknown top-level field', body: { ...valid, mode: 'fast' }, pointers: ['/mode'] },
  { name: 'protocol object at the top level', body: { ...valid, Demand: {} }, pointers: ['/Demand'] },
  { name: 'key_id a number', body: { ...valid, key_id: 5 }, pointers: ['/key_id'] },
  { name: 'idempotency_key empty', body: { ...valid, idempotency_key: '' }, pointers: ['/idempotency_key'] },
  { name: 'request_id with a space', body: { ...valid, request_id: 'a b' }, pointers: ['/request_id'] },
  { name: 'trace_id too long', body: { ...valid, trace_id: 'x'.repeat(129) }, pointers: ['/trace_id'] },
  { name: 'session_id a number', body: { ...valid, session_id: 5 }, pointers: ['/session_id'] },
  { name: 'project_id empty', body: { ...valid, project_id: '' }, pointers: ['/project_id'] },
  { name: 'user_id too long', body: { ...valid, user_id: 'u'.repeat(201) }, pointers: ['/user_id'] },
  { name: 'body an array', body: [], pointers: [''] },
  { name: 'body null', body: null, pointers: [''] },
  { name: 'body a string', body: '"execute"', pointers: [''] },
];

interface RawCase {
  name: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  status: number;
  code: string;
}

const rawCases: RawCase[] = [
  {
    name: '1 MiB body',
    body: JSON.stringify({ ...valid, text: 'x'.repeat(1024 * 1024) }),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'just over 256 KiB',
    body: JSON.stringify({ ...valid, text: 'x'.repeat(256 * 1024) }),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'text/plain content type',
    body: JSON.stringify(valid),
    headers: { 'Content-Type': 'text/plain' },
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'form content type',
    body: 'domain=consultation',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'JSON in another charset',
    body: JSON.stringify(valid),
    headers: { 'Content-Type': 'application/json; charset=latin1' },
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'truncated JSON', body: '{"domain": "consultation"', status: 400, code: 'malformed_json' },
  { name: 'JSON with a trailing comma', body: '{"domain": "consultation",}', status: 400, code: 'malformed_json' },
  { name: 'empty body', body: '', status: 400, code: 'malformed_json' },
  {
    name: 'invalid UTF-8',
    body: new Uint8Array([0x7b, 0x22, 0x64, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    status: 400,
    code: 'malformed_json',
  },
];

describe('validation of POST /api/execute', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant();
  });

  it('every field of the request schema has at least one malformed case', () => {
    const fields = Object.keys(executeRequestSchema.shape);
    const covered = new Set(bodyCases.flatMap((testCase) => testCase.pointers.map((pointer) => pointer.split('/')[1])));
    expect(fields.filter((field) => !covered.has(field))).toEqual([]);
  });

  for (const testCase of bodyCases) {
    it(`${testCase.name} → 422 naming ${testCase.pointers.join(', ') || '(body)'}`, async () => {
      const before = await writeFootprint(tenant.workspaceId, tenant.keyId);
      const body = typeof testCase.body === 'string' ? testCase.body : JSON.stringify(testCase.body);
      const problem = await expectProblem(
        await call('/api/execute', { token: tenant.token, body }),
        422,
        testCase.code ?? 'validation_failed',
      );
      const named = (problem.errors as { pointer: string; detail: string }[]).map((entry) => entry.pointer);
      for (const pointer of testCase.pointers) expect(named).toContain(pointer);
      for (const entry of problem.errors) expect(entry.detail.length).toBeGreaterThan(0);
      expect(await writeFootprint(tenant.workspaceId, tenant.keyId)).toEqual(before);
    });
  }

  for (const testCase of rawCases) {
    it(`${testCase.name} → ${testCase.status} ${testCase.code}`, async () => {
      const response = await call('/api/execute', {
        token: tenant.token,
        body: testCase.body,
        headers: { 'Content-Type': 'application/json', ...testCase.headers },
      });
      const problem = await expectProblem(response, testCase.status, testCase.code);
      expect(problem.detail).toMatch(/body|JSON|Content-Type/);
    });
  }

  it('a missing Content-Type is 415', async () => {
    const bare = await call('/api/execute', {
      token: tenant.token,
      body: JSON.stringify(valid),
      headers: { 'Content-Type': '' },
    });
    await expectProblem(bare, 415, 'unsupported_media_type');
  });

  it('a body at exactly the limit is accepted by the size check', async () => {
    const padding = 256 * 1024 - JSON.stringify({ ...valid, text: '' }).length;
    const body = JSON.stringify({ ...valid, text: 'x'.repeat(padding) });
    expect(new TextEncoder().encode(body).byteLength).toBe(256 * 1024);
    // 256 KiB of text passes the size check and then the text length rule (100,000) answers.
    const problem = await expectProblem(
      await call('/api/execute', { token: tenant.token, body }),
      422,
      'validation_failed',
    );
    expect(problem.errors.map((entry: { pointer: string }) => entry.pointer)).toContain('/text');
  });

  it('structured_input alone is enough', async () => {
    const response = await execute(tenant.token, {
      ...without('text'),
      structured_input: { Demand: { topic: 'crm' } },
    });
    expect(response.status).toBe(200);
  });

  it('the unsupported_execution_mode problem says what to use', async () => {
    const problem = await expectProblem(
      await execute(tenant.token, { ...valid, execution_mode: 'async' }),
      422,
      'unsupported_execution_mode',
    );
    expect(problem.detail).toContain('sync');
  });
});

describe('display strings', () => {
  it('refuse control characters wherever a name, a label or copy is written; paragraphs keep line breaks', async () => {
    const tenant = await createTenant({ scopes: ['channels:write', 'channels:read'] });
    const channel = (body: Record<string, unknown>) =>
      call('/api/integrations/channels', {
        token: tenant.token,
        body: { name: 'Shop', domain: 'consultation', allowed_origins: ['https://shop.example.com'], ...body },
      });
    const brand = (name: string) => ({ widget: { brand: { name } } });
    for (const [body, pointer] of [
      [{ name: '\u0000\u0001' }, '/name'],
      [{ name: 'Shop\nBcc: x' }, '/name'],
      [{ name: 'Shop\u202eedoc' }, '/name'],
      [brand('Acme\r\nFrom: ceo@bank.example'), '/widget/brand/name'],
      [{ widget: { copy: { title: 'Hi\u0007' } } }, '/widget/copy/title'],
      [{ widget: { copy: { greeting: 'Hello\u0000' } } }, '/widget/copy/greeting'],
    ] as const) {
      const problem = await expectProblem(await channel(body), 422, 'validation_failed');
      expect(problem.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
    }
    // A greeting is a paragraph: line breaks are text.
    expect((await channel({ widget: { copy: { greeting: 'Hello!\nHow can we help?' } } })).status).toBe(201);
    const organization = await call('/api/admin/organizations', {
      token: ADMIN_TOKEN,
      body: { name: 'Acme\u0000Corp' },
    });
    await expectProblem(organization, 422, 'validation_failed');
    const provider = await signUpProvider();
    for (const body of [{ display_name: 'Dana\u0000' }, { headline: 'Expert\u0085' }, { bio: 'Bio\u001b[31m' }]) {
      const response = await sessionCall(provider.cookie, '/api/provider/profile', { body });
      await expectProblem(response, 422, 'validation_failed');
    }
    const bio = await sessionCall(provider.cookie, '/api/provider/profile', { body: { bio: 'Line one.\nLine two.' } });
    expect(bio.status).toBe(200);
  });

  it('refuse invisible and direction marks in names and copy, and in a visitor’s name, but keep joiners', async () => {
    const tenant = await createTenant({ scopes: ['channels:write', 'channels:read'] });
    const channel = (body: Record<string, unknown>) =>
      call('/api/integrations/channels', {
        token: tenant.token,
        body: { name: 'Shop', domain: 'consultation', allowed_origins: ['https://shop.example.com'], ...body },
      });
    const marks = ['\u200b', '\u200f', '\u061c', '\ufeff', '\u3164', '\u2060', '\u00ad'];
    for (const mark of marks) {
      for (const [body, pointer] of [
        [{ name: `Sh${mark}op` }, '/name'],
        [{ widget: { brand: { name: `Acme${mark}Bank` } } }, '/widget/brand/name'],
        [{ widget: { copy: { title: `H${mark}i` } } }, '/widget/copy/title'],
      ] as const) {
        const problem = await expectProblem(await channel(body), 422, 'validation_failed');
        expect(
          problem.errors.map((error: { pointer: string }) => error.pointer),
          JSON.stringify(body),
        ).toContain(pointer);
      }
    }
    const provider = await signUpProvider();
    await expectProblem(
      await sessionCall(provider.cookie, '/api/provider/profile', { body: { display_name: '\u3164' } }),
      422,
      'validation_failed',
    );
    // Emoji sequences and Persian words keep their joiners.
    expect((await channel({ name: 'Family 👨\u200d👩\u200d👧 shop' })).status).toBe(201);
    expect((await channel({ name: 'می\u200cخواهم' })).status).toBe(201);
    // A visitor's name is shown to the expert who claims: no line breaks, NUL or overrides in it.
    const created = await json(await channel({}));
    for (const name of ['Ann\r\nBcc: x', 'Ann\u0000', 'Ann\u202eevil', 'Ann\u200f']) {
      const intake = await call(`/api/public/widget/${created.channel_key}/intake`, {
        body: { message: { text: 'Hello' }, contact: { name, email: 'ann@example.com' } },
        headers: { Origin: 'https://shop.example.com', 'CF-Connecting-IP': '198.18.92.7' },
      });
      const problem = await expectProblem(intake, 422, 'validation_failed');
      expect(problem.errors[0].pointer).toBe('/contact/name');
    }
  });
});
