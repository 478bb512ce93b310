/**
 * /embed/docs.js: the docs' enhancements, which all pages work without.
 * - search: the page carries the index of every page's sections; matching runs here, with no request
 * - copy buttons on code blocks
 * - the live widget's egw() buttons on the integration page
 */
interface SearchEntry {
  page: string;
  heading: string;
  href: string;
  text: string;
}

const MAX_RESULTS = 8;

function setUpSearch() {
  const box = document.querySelector<HTMLElement>('.docs-search');
  const input = document.getElementById('docs-search-input') as HTMLInputElement | null;
  const results = document.getElementById('docs-search-results');
  const index = document.getElementById('docs-index');
  if (!box || !input || !results || !index) return;
  const entries = JSON.parse(index.textContent ?? '[]') as SearchEntry[];
  const haystacks = entries.map((entry) => ({
    entry,
    heading: `${entry.page} ${entry.heading}`.toLowerCase(),
    text: entry.text.toLowerCase(),
  }));
  box.hidden = false;

  const render = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    results.replaceChildren();
    if (words.length === 0) return;
    const scored = haystacks
      .map(({ entry, heading, text }) => {
        let score = 0;
        for (const word of words) {
          if (heading.includes(word)) score += 3;
          else if (text.includes(word)) score += 1;
          else return { entry, score: 0 };
        }
        return { entry, score };
      })
      .filter((result) => result.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_RESULTS);
    if (scored.length === 0) {
      const item = document.createElement('li');
      item.textContent = 'Nothing found.';
      results.append(item);
      return;
    }
    for (const { entry } of scored) {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = entry.href;
      link.textContent = entry.heading === entry.page ? entry.page : `${entry.heading} · ${entry.page}`;
      const excerpt = document.createElement('span');
      excerpt.className = 'muted';
      excerpt.textContent = entry.text.length > 120 ? `${entry.text.slice(0, 120)}…` : entry.text;
      item.append(link, excerpt);
      results.append(item);
    }
  };
  input.addEventListener('input', render);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      input.value = '';
      render();
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === '/' && document.activeElement?.tagName !== 'INPUT') {
      event.preventDefault();
      input.focus();
    }
  });
}

function setUpCopyButtons() {
  for (const pre of document.querySelectorAll<HTMLPreElement>('.docs-main pre')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy-code';
    button.textContent = 'Copy';
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(pre.querySelector('code')?.textContent ?? '');
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select and copy';
      }
      setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
    pre.append(button);
  }
}

function setUpWidgetButtons() {
  type Queue = ((...args: unknown[]) => void) & { q?: unknown[][] };
  const host = window as unknown as { egw?: Queue };
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-egw]')) {
    button.hidden = false;
    button.addEventListener('click', () => {
      // The snippet's queue: a call made before the loader arrives waits for it.
      const egw: Queue =
        host.egw ??
        ((...args: unknown[]) => {
          egw.q = egw.q ?? [];
          egw.q.push(args);
        });
      host.egw = egw;
      egw(button.dataset.egw);
    });
  }
}

setUpSearch();
setUpCopyButtons();
setUpWidgetButtons();
