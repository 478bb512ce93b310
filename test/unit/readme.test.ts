import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog } from '../../worker/lib/errors';

describe('the README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('lists every error code with its status', () => {
    for (const [code, { status }] of Object.entries(errorCatalog)) {
      expect(readme, `${code} is missing from the README`).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });

  it('shows the two commands', () => {
    expect(readme).toContain('npm install && npm run dev');
    expect(readme).toContain('npm test');
  });
});
