/**
 * Which domain a demand that names none belongs to (docs/design/callers.md): a generic A2A or MCP
 * client sends text only. The catalog domain whose slug, name and description share the most
 * words with the text wins (its slug and name count double); without a match, the workspace's
 * default domain; without one, the catalog's first. Pure: the catalog and the default are given.
 */

export interface CatalogDomain {
  domain: string;
  name: string;
  description: string | null;
}

export interface DomainChoice {
  domain: string;
  /** `text`: the words matched it; `default`: the workspace's default; `catalog`: the catalog's first. */
  by: 'text' | 'default' | 'catalog';
}

/** Words too common to say what a demand is about. */
const STOP = new Set(
  (
    'the and for with you your our are can how what when where who why this that from have has had was were ' +
    'will about into need help please want like just'
  ).split(' '),
);

/** The distinct words of a text: letters and digits, lower-cased, three or more characters, common ones left out. */
export function wordsOf(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length >= 3 && !STOP.has(word)),
  );
}

/** The domain of a demand that names none, and why it was chosen; null for an empty catalog. */
export function chooseDomain(
  text: string,
  catalog: CatalogDomain[],
  workspaceDefault: string | null,
): DomainChoice | null {
  if (catalog.length === 0) return null;
  const words = wordsOf(text);
  let best: { domain: string; score: number } | undefined;
  for (const entry of catalog) {
    const strong = wordsOf(`${entry.domain.replaceAll('-', ' ')} ${entry.name}`);
    const weak = wordsOf(entry.description ?? '');
    let score = 0;
    for (const word of words) score += strong.has(word) ? 2 : weak.has(word) ? 1 : 0;
    if (score > 0 && (!best || score > best.score)) best = { domain: entry.domain, score };
  }
  if (best) return { domain: best.domain, by: 'text' };
  if (workspaceDefault && catalog.some((entry) => entry.domain === workspaceDefault))
    return { domain: workspaceDefault, by: 'default' };
  return { domain: catalog[0]!.domain, by: 'catalog' };
}
