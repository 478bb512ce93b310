/** @jsxImportSource hono/jsx */
/**
 * The docs are written in a small, strict subset of Markdown, so that each page's `.md` copy is its
 * source and the HTML cannot drift from it: headings (`## Title {#id}`), paragraphs, `-` and `1.`
 * lists, `>` notes, pipe tables, fenced code, and `::name` lines for figures (an inline SVG in
 * HTML, its text in Markdown). Inline: `code`, **bold** and [links](url). No raw HTML: every
 * character of the source is rendered as text, so a page cannot inject markup.
 */
import type { Child, FC } from 'hono/jsx';
import { DataTable } from '../shared/layout';

export type Block =
  | { kind: 'heading'; level: number; text: string; id: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; start: number; items: string[] }
  | { kind: 'note'; text: string }
  | { kind: 'table'; header: string[]; rows: string[][]; rowIds: (string | undefined)[] }
  | { kind: 'code'; info: string; code: string }
  | { kind: 'figure'; name: string };

/** The id a heading gets: `{#id}` when given, else its text in lower case with dashes. */
export function slugOf(text: string): string {
  return (
    inlineText(text)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'section'
  );
}

function headingOf(level: number, raw: string, taken: Set<string>): Block {
  const explicit = /\s*\{#([a-z0-9_-]+)\}\s*$/i.exec(raw);
  const text = explicit ? raw.slice(0, explicit.index) : raw;
  let id = explicit?.[1] ?? slugOf(text);
  for (let n = 2; taken.has(id); n += 1) id = `${explicit?.[1] ?? slugOf(text)}-${n}`;
  taken.add(id);
  return { kind: 'heading', level, text: text.trim(), id };
}

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));

export const ROW_ID = /^\{#([a-z0-9_-]+)\}\s*/i;

/** Splits a page's Markdown into blocks. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const taken = new Set<string>();
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    if (line.trim() === '') {
      index += 1;
      continue;
    }
    const fence = /^```(.*)$/.exec(line);
    if (fence) {
      const body: string[] = [];
      index += 1;
      while (index < lines.length && lines[index] !== '```') body.push(lines[index++] ?? '');
      index += 1;
      blocks.push({ kind: 'code', info: (fence[1] ?? '').trim(), code: body.join('\n') });
      continue;
    }
    const heading = /^(#{1,4}) (.+)$/.exec(line);
    if (heading) {
      blocks.push(headingOf(heading[1]?.length ?? 1, heading[2] ?? '', taken));
      index += 1;
      continue;
    }
    const figure = /^::([a-z-]+)$/.exec(line);
    if (figure) {
      blocks.push({ kind: 'figure', name: figure[1] ?? '' });
      index += 1;
      continue;
    }
    if (line.startsWith('|')) {
      const rows: string[][] = [];
      while (index < lines.length && (lines[index] ?? '').startsWith('|')) rows.push(cellsOf(lines[index++] ?? ''));
      const [header = [], , ...body] = rows;
      // A first cell `{#id} text` gives its row an anchor (error codes link to theirs).
      const rowIds = body.map((cells) => ROW_ID.exec(cells[0] ?? '')?.[1]);
      for (const cells of body) cells[0] = (cells[0] ?? '').replace(ROW_ID, '');
      blocks.push({ kind: 'table', header, rows: body, rowIds });
      continue;
    }
    const item = /^(- |\d+\. )/;
    if (item.test(line)) {
      const ordered = /^\d/.test(line);
      const start = ordered ? Number.parseInt(line, 10) : 1;
      const items: string[] = [];
      while (index < lines.length) {
        const current = lines[index] ?? '';
        if (item.test(current)) items.push(current.replace(item, ''));
        else if (/^ {2,}\S/.test(current) && items.length > 0) items[items.length - 1] += ` ${current.trim()}`;
        else break;
        index += 1;
      }
      blocks.push({ kind: 'list', ordered, start, items });
      continue;
    }
    const prefix = line.startsWith('> ') ? '> ' : '';
    const text: string[] = [];
    while (index < lines.length) {
      const current = lines[index] ?? '';
      if (current.trim() === '' || /^(```|#{1,4} |::|\||- |\d+\. )/.test(current)) break;
      if (prefix && !current.startsWith(prefix)) break;
      text.push(current.slice(prefix.length));
      index += 1;
    }
    blocks.push({ kind: prefix ? 'note' : 'paragraph', text: text.join(' ') });
  }
  return blocks;
}

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** The inline text without its Markdown marks (for search and ids). */
export function inlineText(text: string): string {
  return text.replace(INLINE, (_match, code, bold, label) => code ?? bold ?? label ?? '');
}

/** Inline Markdown as JSX: code, bold and links; everything else is text. */
export const Inline: FC<{ text: string }> = ({ text }) => {
  const parts: Child[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    parts.push(text.slice(last, match.index));
    const [, code, bold, label, href] = match;
    if (code !== undefined) parts.push(<code>{code}</code>);
    else if (bold !== undefined) parts.push(<strong>{bold}</strong>);
    else parts.push(<a href={safeHref(href ?? '')}>{label}</a>);
    last = (match.index ?? 0) + match[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
};

/** Links go to our own paths, anchors or http(s) pages, never to script or data URLs. */
function safeHref(href: string): string {
  return /^(https?:\/\/|\/|#|mailto:)/.test(href) ? href : '#';
}

/** The language of a fence (its first word), for the code's class and the copy button. */
export const languageOf = (info: string) => info.split(/\s+/)[0] ?? '';

/** Blocks as HTML; `figures` draws the `::name` lines. */
export const MarkdownBlocks: FC<{ blocks: Block[]; figures: Record<string, FC> }> = ({ blocks, figures }) => (
  <>
    {blocks.map((block) => {
      switch (block.kind) {
        case 'heading': {
          const Tag = `h${block.level}` as 'h2';
          return (
            <Tag id={block.id}>
              <Inline text={block.text} />
              {block.level > 1 ? (
                <a class="anchor" href={`#${block.id}`} aria-label={`Link to ${inlineText(block.text)}`}>
                  #
                </a>
              ) : null}
            </Tag>
          );
        }
        case 'paragraph':
          return (
            <p>
              <Inline text={block.text} />
            </p>
          );
        case 'note':
          return (
            <aside class="note">
              <Inline text={block.text} />
            </aside>
          );
        case 'list': {
          const items = block.items.map((text) => (
            <li>
              <Inline text={text} />
            </li>
          ));
          return block.ordered ? (
            <ol start={block.start === 1 ? undefined : block.start}>{items}</ol>
          ) : (
            <ul>{items}</ul>
          );
        }
        case 'table':
          return (
            <DataTable
              rows={block.rows}
              rowId={(row) => block.rowIds[block.rows.indexOf(row)]}
              columns={block.header.map((header, column) => ({
                header: inlineText(header),
                cell: (row: string[]) => <Inline text={row[column] ?? ''} />,
              }))}
            />
          );
        case 'code':
          return (
            <pre data-lang={languageOf(block.info)}>
              <code>{block.code}</code>
            </pre>
          );
        default: {
          const Figure = figures[block.name];
          return Figure ? <Figure /> : null;
        }
      }
    })}
  </>
);
