import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog } from '../../worker/lib/errors';

describe('the README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('lists every error code with its status', () => {
    for (const [code, { status }] of Object.entries(errorCatalog)) {
      expect(readme, `${code} is missing from the README`).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });

  it('names every folder of worker/, and every module of worker/platform/, in its layout', () => {
    const layout = readme.slice(readme.indexOf('## Layout'), readme.indexOf('## Deploying'));
    const entries = (path: string) => readdirSync(new URL(`../../${path}`, import.meta.url), { withFileTypes: true });
    for (const entry of entries('worker')) {
      if (entry.isDirectory()) expect(layout, `worker/${entry.name}/`).toContain(`worker/${entry.name}/`);
    }
    for (const entry of entries('worker/platform')) {
      const name = entry.isDirectory() ? `  ${entry.name}/` : `  ${entry.name}`;
      expect(layout, `worker/platform/${entry.name}`).toContain(name);
    }
  });

  it('shows the two commands', () => {
    expect(readme).toContain('npm install && npm run dev');
    expect(readme).toContain('npm test');
  });
});
