/** The code examples of the docs, read from each page's Markdown copy as a reader would copy them. */

export interface Example {
  page: string;
  /** The fence's info string: the language, then how the docs test runs it. */
  info: string;
  code: string;
}

/** Every fenced block of every page that /llms.txt lists. */
export async function docsExamples(worker: string): Promise<Example[]> {
  const index = await (await fetch(`${worker}/llms.txt`)).text();
  const pages = [...index.matchAll(/\((http[^)\s]+\.md)\)/g)].map((match) => match[1] as string);
  const examples: Example[] = [];
  for (const page of pages) {
    const markdown = await (await fetch(page)).text();
    for (const match of markdown.matchAll(/^```(.*)\n([\s\S]*?)\n```$/gm))
      examples.push({ page, info: (match[1] ?? '').trim(), code: match[2] ?? '' });
  }
  return examples;
}

/** How each kind of example runs; a fence of any other kind fails the docs test. */
export const EXAMPLE_KINDS = {
  shell: ['sh', 'sh problem'],
  parsed: ['json', 'json event', 'json agent-card', 'json mcp-config'],
  /** Node programs with an official client (MCP, A2A), run against the worker with EGW_API_KEY. */
  client: ['js client'],
  receiver: ['js receiver', 'python receiver'],
  link: ['html link'],
  browser: ['html browser', 'js browser', 'text csp'],
  /** The API reference's examples: each is run by the worker suite (test/worker/openapi.cases.ts). */
  reference: ['sh reference'],
} as const;
