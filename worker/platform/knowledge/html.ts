/**
 * HTML read into a document's sections with the runtime's HTMLRewriter (no DOM library): the
 * title, the headings (their ids are the anchors), the text of the page without its scripts,
 * styles and navigation, and its links (for a crawl). Text arrives raw, so entities are decoded
 * here.
 */
import { htmlEntities } from '../../lib/html-entities';
import type { ReadDocument, Section } from './text';

/** Decodes the character references of HTML text (the named ones in lib/html-entities.ts, and numeric ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = htmlEntities[whole] ?? htmlEntities[`&${name.toLowerCase()};`];
    return named === undefined ? whole : named.replace('\u00a0', ' ');
  });
}

// Code blocks are skipped too: an answer is prose, and a line of code read as a sentence is noise.
// A selector here must not be in BLOCKS: an element's second onEndTag replaces its first.
const SKIPPED = 'script, style, noscript, svg, template, nav, footer, header, aside, form, button, pre';
const BLOCKS = 'p, li, dd, dt, blockquote, br, div, section, article, main, tr, table, ul, ol, figcaption';
/** Between a table row's cells: a row reads as one sentence ("`agents:invoke` · Agents … first."). */
const CELL_END = '\u241f';

/** Reads an HTML page; answers its document and the links it holds (absolute, by `base`). */
export async function readHtml(
  html: string,
  givenTitle: string | null,
  base: string | null,
): Promise<{ document: ReadDocument; links: string[] }> {
  let pageTitle = '';
  let skipped = 0;
  const sections: Section[] = [];
  const links: string[] = [];
  let path: string[] = [];
  let current: Section = { headings: [], anchor: null, text: '' };
  let heading: { level: number; text: string; id: string | null } | null = null;
  let inTitle = false;
  const rewriter = new HTMLRewriter()
    .on('title', {
      element(element) {
        inTitle = true;
        element.onEndTag(() => {
          inTitle = false;
        });
      },
    })
    .on(SKIPPED, {
      element(element) {
        skipped++;
        element.onEndTag(() => {
          skipped--;
        });
      },
    })
    .on('h1, h2, h3, h4, h5, h6', {
      element(element) {
        if (skipped > 0) return;
        heading = { level: Number(element.tagName.slice(1)), text: '', id: element.getAttribute('id') };
        element.onEndTag(() => {
          const done = heading;
          heading = null;
          if (!done) return;
          // A heading's permalink mark ("#", "¶", "🔗") is not one of its words.
          const words = decodeEntities(done.text)
            .replace(/\s+/g, ' ')
            .replace(/\s*[#¶§🔗]+$/u, '')
            .trim();
          if (!words) return;
          if (current.text.trim()) sections.push(current);
          path = [...path.slice(0, done.level - 1), words];
          current = { headings: path.filter(Boolean), anchor: done.id, text: '' };
        });
      },
    })
    .on('a[href]', {
      element(element) {
        const href = element.getAttribute('href');
        if (!href || !base) return;
        try {
          links.push(new URL(decodeEntities(href), base).href);
        } catch {
          // Not a URL: not followed.
        }
      },
    })
    .on('td, th', {
      element(element) {
        element.onEndTag(() => {
          if (skipped === 0) current.text += CELL_END;
        });
      },
    })
    .on(BLOCKS, {
      element(element) {
        if (skipped === 0) current.text += '\n';
        if (element.tagName === 'br') return;
        element.onEndTag(() => {
          if (skipped === 0) current.text += '\n';
        });
      },
    })
    .onDocument({
      text(chunk) {
        if (inTitle) pageTitle += chunk.text;
        else if (skipped > 0) return;
        else if (heading) heading.text += chunk.text;
        else current.text += chunk.text.replace(/\s+/g, ' '); // Only a block ends a line, as a browser shows it.
      },
    });
  await rewriter.transform(new Response(html)).arrayBuffer();
  if (current.text.trim()) sections.push(current);
  // Before the first heading, a few words are a skip link or a banner, not the page's text.
  if (sections[0]?.headings.length === 0 && sections[0].text.trim().split(/\s+/).length < 5) sections.shift();
  for (const section of sections)
    section.text = decodeEntities(section.text)
      .replace(/\s*\u241f\s*(?=\n|$)/g, '')
      .replace(/\s*\u241f\s*/g, ' · ')
      .replace(/[ \t]+/g, ' ');
  const title = givenTitle ?? (decodeEntities(pageTitle).replace(/\s+/g, ' ').trim() || sections[0]?.headings[0]);
  return { document: { title: title || 'Untitled', sections }, links };
}
