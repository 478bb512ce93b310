/**
 * The repository explains itself: the README's layout names the tree, its links and the design
 * pages' links resolve, and no file cites a document outside the repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every file under `dir` (relative to the root), but dependencies and build output. */
function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const skipped = ['node_modules', 'dist', '.wrangler', '.git'];
    if (entry.isDirectory()) return skipped.includes(entry.name) ? [] : files(path);
    return [path];
  });
}

describe('the README', () => {
  const readme = read('README.md');

  it('names every folder of worker/, and every module of worker/platform/, in its layout', () => {
    const layout = readme.slice(readme.indexOf('## Layout'), readme.indexOf('## Deploying'));
    const entries = (path: string) => readdirSync(join(ROOT, path), { withFileTypes: true });
    for (const entry of entries('worker')) {
      if (entry.isDirectory()) expect(layout, `worker/${entry.name}/`).toContain(`worker/${entry.name}/`);
    }
    for (const entry of entries('worker/platform')) {
      const name = entry.isDirectory() ? `  ${entry.name}/` : `  ${entry.name}`;
      expect(layout, `worker/platform/${entry.name}`).toContain(name);
    }
  });

  it('shows the two commands, and stays short', () => {
    expect(readme).toContain('npm install && npm run dev');
    expect(readme).toContain('npm test');
    expect(readme.split('\n').length).toBeLessThan(350);
  });

  it('and the design pages link only to files that exist', () => {
    for (const page of ['README.md', ...files('docs/design')]) {
      const text = read(page);
      for (const [, target] of text.matchAll(/\]\(((?!https?:|#|mailto:)[^)#\s]+)(?:#[^)]*)?\)/g)) {
        expect(existsSync(join(ROOT, dirname(page), target!)), `${page} → ${target}`).toBe(true);
      }
    }
  });
});

describe('the repository', () => {
  it('cites no document outside itself', () => {
    const cited = files('.')
      .filter((path) => /\.(ts|tsx|mjs|cjs|js|json|toml|md|example)$/.test(path) && !path.startsWith('migrations/meta'))
      .filter((path) => /PRODUCT\.md|SPEC\.md|STACK\.md|STYLE\.md/.test(read(path)))
      .map((path) => relative(ROOT, join(ROOT, path)));
    expect(cited).toEqual([]);
  });
});
