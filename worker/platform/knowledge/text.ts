/**
 * A source's text as the index reads it (docs/design/knowledge.md): a document is cut into
 * sections at its headings, each keeping its heading path and the anchor a link can point at, and
 * each section into chunks of a few hundred words, at sentence ends. Markdown and plain text are
 * read here; HTML goes through the runtime's HTMLRewriter (html.ts) into the same sections.
 */
import { cleanDisplayString } from '../../lib/display-text';

/** A part of a document under one heading. */
export interface Section {
  /** The heading path, outermost first (empty before the first heading). */
  headings: string[];
  /** The id a link to this heading names (`#…`), when it has one. */
  anchor: string | null;
  text: string;
}

/** A document read into its title and sections. */
export interface ReadDocument {
  title: string;
  sections: Section[];
}

/** A document of a source, read, with its page's URL. */
export interface SourceDocument {
  document: ReadDocument;
  url: string | null;
}

/** A chunk ready for the index. */
export interface ChunkText {
  title: string;
  headings: string;
  body: string;
  url: string | null;
}

/** About this many words make a chunk (a few hundred: enough context, still one topic). */
export const CHUNK_WORDS = 220;
/** A chunk never holds more characters than this (a long line without sentence ends is cut). */
const CHUNK_CHARS = 2_400;

/** The anchor GitHub and most docs sites give a heading: lower case, words joined by hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
}

/** Markdown's inline syntax read as plain words: links and images by their text, no emphasis marks. */
function plainInline(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_|~~)(\S[^*_~]*?)\1/g, '$2')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/^\s*>\s?/, '')
    .replace(/^\s*\|/, '')
    .replace(/\|\s*$/, '')
    .replace(/\s*\|\s*/g, ' · ');
}

/**
 * Reads Markdown: `#` headings start sections (the first `#` is the title unless one is given);
 * a table's row is one line, its cells joined by ` · `; fenced code is left out.
 */
export function readMarkdown(content: string, givenTitle: string | null): ReadDocument {
  const sections: Section[] = [];
  let path: string[] = [];
  let current: Section = { headings: [], anchor: null, text: '' };
  let title = givenTitle;
  let fenced = false;
  for (const raw of content.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    const heading = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(raw);
    if (heading) {
      if (current.text.trim()) sections.push(current);
      const level = heading[1]!.length;
      const words = plainInline(heading[2]!).trim();
      if (level === 1 && !title) title = words;
      path = [...path.slice(0, level - 1), words];
      while (path.length < level) path.unshift('');
      const headings = path.filter(Boolean);
      current = { headings, anchor: headingAnchor(words), text: '' };
      continue;
    }
    // Code is not prose: an answer never quotes it as a sentence (HTML's <pre> is skipped alike).
    if (fenced || /^\s*(-{3,}|\*{3,}|\|?\s*:?-{3,})/.test(raw)) continue;
    const line = plainInline(raw).trim();
    // A paragraph's wrapped lines are one text; an item, a row or a quote starts a line of its own.
    const ownLine = /^\s*(?:[-*+]\s|\d+[.)]\s|\||>)/.test(raw);
    if (!line) current.text += '\n';
    else current.text += `${ownLine || current.text === '' || current.text.endsWith('\n') ? '\n' : ' '}${line}`;
  }
  if (current.text.trim()) sections.push(current);
  return { title: title ?? sections[0]?.headings[0] ?? 'Untitled', sections };
}

/** Reads plain text: one section, paragraphs kept. */
export function readPlainText(content: string, givenTitle: string | null): ReadDocument {
  const text = content.replace(/\r\n?/g, '\n');
  const firstLine = text.trim().split('\n')[0]?.trim() ?? '';
  return {
    title: givenTitle ?? (firstLine.slice(0, 120) || 'Untitled'),
    sections: [{ headings: [], anchor: null, text }],
  };
}

/**
 * Sentences of a text, with their ends kept: a period, ? or ! before a space, or a line break (a
 * list item, a table's row). A period inside a word stays ("1.5 KB", "127.0.0.1", "{id}.{body}");
 * a table's row is one sentence, whatever its cells hold.
 */
export function sentencesOf(text: string): string[] {
  return text.split('\n').flatMap((line) =>
    // A table's row (its cells joined by " · ") is one statement, whatever its cells' periods.
    line.includes(' · ')
      ? [line.replace(/\s+/g, ' ').trim()].filter(Boolean)
      : (line
          .match(/(?:[^.!?]|[.!?](?![.!?]*(?:\s|$)))+[.!?]*/g)
          ?.map((sentence) => sentence.replace(/\s+/g, ' ').trim())
          .filter(Boolean) ?? []),
  );
}

/**
 * A section that only points elsewhere ("Next", "See also", "Related articles"): its lines are
 * links to other pages, each with a few words of what is there, and answer nothing themselves.
 */
const NAVIGATION_HEADING =
  /^(next( steps)?|what[’']?s next|read next|see also|related( articles| pages| topics)?|further reading)$/i;

/**
 * The anchor a citation links to: a heading's own id when it is a plain name (letters, digits,
 * `-_.:`), else the one its words give; an id with quotes, spaces or markup is never put in a link.
 */
function linkAnchor(anchor: string | null, heading: string | undefined): string | null {
  if (anchor && /^[\p{L}\p{N}_.:-]{1,120}$/u.test(anchor)) return anchor;
  if (!anchor) return null;
  return heading ? headingAnchor(heading) || null : null;
}

/**
 * Cuts a document into chunks: each section into pieces of about CHUNK_WORDS words, at sentence
 * ends; sections that only point elsewhere are left out.
 */
export function chunksOf(document: ReadDocument, url: string | null): ChunkText[] {
  const chunks: ChunkText[] = [];
  // A page's title and headings reach citations in pages, the API and MCP: cleaned at the door.
  const title = cleanDisplayString(document.title, 300) || 'Untitled';
  for (const section of document.sections) {
    const names = section.headings.map((heading) => cleanDisplayString(heading, 200)).filter(Boolean);
    if (NAVIGATION_HEADING.test(names.at(-1) ?? '')) continue;
    const headings = names.join(' › ');
    const anchor = linkAnchor(section.anchor, names.at(-1));
    const link = url ? (anchor ? `${url.split('#')[0]}#${anchor}` : url) : null;
    let body: string[] = [];
    let words = 0;
    const flush = () => {
      // One sentence a line: the answer is cut from the chunk at the same ends.
      const text = body.join('\n').trim();
      if (text) chunks.push({ title, headings, body: text.slice(0, CHUNK_CHARS), url: link });
      body = [];
      words = 0;
    };
    for (const sentence of sentencesOf(section.text)) {
      const count = sentence.split(/\s+/).length;
      if (words > 0 && words + count > CHUNK_WORDS) flush();
      body.push(sentence);
      words += count;
    }
    flush();
  }
  return chunks;
}
