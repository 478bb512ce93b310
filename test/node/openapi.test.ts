import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, inject, it } from 'vitest';

const base = inject('workerUrl');

describe('the served OpenAPI description, checked by an independent validator', () => {
  for (const path of ['/openapi.yaml', '/openapi.json']) {
    it(`${path} is a valid OpenAPI 3.1 document`, async () => {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(200);
      const text = await response.text();
      const validator = new Validator();
      const result = await validator.validate(path.endsWith('.json') ? JSON.parse(text) : text);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });
  }

  it('a request built from the documented example executes against the seeded demo', async () => {
    const document = await (await fetch(`${base}/openapi.json`)).json();
    const example = Object.fromEntries(
      Object.entries(document.components.schemas.ExecuteRequest.properties as Record<string, { example?: unknown }>)
        .filter(([, schema]) => schema.example !== undefined)
        .map(([name, schema]) => [name, schema.example]),
    );
    const response = await fetch(`${base}/api/execute`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${inject('demoApiKey')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ execution_mode: 'sync', ...example }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await response.json()).output.status).toBe('completed');
  });
});
