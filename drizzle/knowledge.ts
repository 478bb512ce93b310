/**
 * The owner's knowledge (docs/design/knowledge.md): the sources a workspace gives (documents, Q&A
 * pairs, URLs), the chunks they are cut into, and the questions the knowledge could not answer.
 * The chunks are indexed by the FTS5 table `knowledge_fts` (migration 0028; external content over
 * `knowledge_chunks`, kept in step by triggers). A chunk's id is its workspace's ordinal times
 * 2^24 plus a counter, so a search reads only its own workspace's id range of the index, whatever
 * the other workspaces hold.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { KNOWLEDGE_SOURCE_KINDS, KNOWLEDGE_SOURCE_STATUSES } from '../worker/vocabulary';

/** A workspace's place in the index: its ordinal (the high bits of its chunks' ids) and next chunk number. */
export const knowledgeSpaces = sqliteTable(
  'knowledge_spaces',
  {
    ordinal: integer('ordinal').primaryKey({ autoIncrement: true }),
    workspaceId: text('workspace_id').notNull(),
    /** The next chunk's number within the workspace's range (below 2^24). */
    nextChunk: integer('next_chunk').notNull().default(0),
    /** Limits, admin-settable: how many sources and how many bytes of content. */
    maxSources: integer('max_sources').notNull().default(1000),
    maxBytes: integer('max_bytes')
      .notNull()
      .default(20 * 1024 * 1024),
    /** How many passages the workspace's sources may be cut into, together (about what 20 MB of pages gives). */
    maxChunks: integer('max_chunks').notNull().default(20_000),
    /**
     * What ranking reads of the workspace (BM25F: docs/design/knowledge.md#ranking), kept by every
     * index write: its passages, and its passages' words per field (their average lengths).
     */
    passages: integer('passages').notNull().default(0),
    titleTokens: integer('title_tokens').notNull().default(0),
    headingTokens: integer('heading_tokens').notNull().default(0),
    bodyTokens: integer('body_tokens').notNull().default(0),
    /** The language most of its passages are written in: a question in another is said to be. */
    language: text('language'),
  },
  (table) => [uniqueIndex('knowledge_spaces_workspace').on(table.workspaceId)],
);

/** A source of knowledge (`ks_…`): a document, a Q&A pair, or a URL (one page, a sitemap, a site). */
export const knowledgeSources = sqliteTable(
  'knowledge_sources',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: KNOWLEDGE_SOURCE_KINDS }).notNull(),
    title: text('title').notNull(),
    url: text('url'),
    /** A document's: `text/markdown`, `text/html` or `text/plain`. */
    contentType: text('content_type'),
    /** A document's text, or a Q&A pair's answer (its question is the title); a URL source keeps none. */
    content: text('content'),
    language: text('language'),
    /** A URL source's crawl: `page`, `sitemap` or `site`, and its page bound. */
    crawlMode: text('crawl_mode'),
    maxPages: integer('max_pages'),
    status: text('status', { enum: KNOWLEDGE_SOURCE_STATUSES }).notNull(),
    error: text('error'),
    documents: integer('documents').notNull().default(0),
    chunks: integer('chunks').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    /** A URL source's validators, sent back on a re-sync (`If-None-Match`, `If-Modified-Since`). */
    etag: text('etag'),
    lastModified: text('last_modified'),
    indexedAt: integer('indexed_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    index('knowledge_sources_workspace_idx').on(table.workspaceId, table.createdAt),
    index('knowledge_sources_sync_idx').on(table.kind, table.indexedAt),
  ],
);

/**
 * A URL source's crawl in progress (crawl.ts): where it got to, so that a crawl runs in slices of
 * bounded time (each one queue message) and a crash or a deadline resumes it rather than starting
 * over. `lease_until` lets one slice at a time work on it; the row goes when the crawl ends.
 */
export const knowledgeCrawls = sqliteTable('knowledge_crawls', {
  sourceId: text('source_id').primaryKey(),
  workspaceId: text('workspace_id').notNull(),
  /** The crawl's cursor (CrawlCursor: the URLs still to read, those seen, robots.txt's rules, counts). */
  cursor: text('cursor', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  /** Slices run so far: a crawl that needs too many, or keeps failing, ends `failed`. */
  slices: integer('slices').notNull().default(0),
  leaseUntil: integer('lease_until'),
  startedAt: integer('started_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** A page a crawl in progress has read, kept until the crawl ends and indexes them all in one batch. */
export const knowledgeCrawlPages = sqliteTable(
  'knowledge_crawl_pages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: text('source_id').notNull(),
    url: text('url').notNull(),
    /** The page read into its title and sections (ReadDocument). */
    document: text('document', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (table) => [index('knowledge_crawl_pages_source_idx').on(table.sourceId)],
);

/**
 * A passage of a source: the text under one heading (or a part of it), with its heading path and
 * the link to it. Indexed by `knowledge_fts` (title, headings and body).
 */
export const knowledgeChunks = sqliteTable(
  'knowledge_chunks',
  {
    /** The workspace's ordinal × 2^24 + its counter: the index's rowid. */
    id: integer('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    sourceId: text('source_id').notNull(),
    /** The document's title (a page's, a Q&A pair's question). */
    title: text('title').notNull(),
    /** The heading path, " › " between headings. */
    headings: text('headings').notNull(),
    body: text('body').notNull(),
    /** The source's or the page's URL with the heading's anchor. */
    url: text('url'),
    language: text('language'),
    /** Its fields' lengths in words, counted when it is written: what the workspace's averages sum. */
    titleTokens: integer('title_tokens').notNull().default(0),
    headingTokens: integer('heading_tokens').notNull().default(0),
    bodyTokens: integer('body_tokens').notNull().default(0),
  },
  (table) => [index('knowledge_chunks_source_idx').on(table.sourceId)],
);

/**
 * A question the knowledge declined, counted per workspace and normalised wording: the gaps an
 * owner fills. `expert_answer` is what an expert replied when that question went to a person.
 */
export const knowledgeGaps = sqliteTable(
  'knowledge_gaps',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    /** The question's words, lower case, as the visitor's first wording said them. */
    normalized: text('normalized').notNull(),
    question: text('question').notNull(),
    count: integer('count').notNull().default(1),
    lastConversationId: text('last_conversation_id'),
    expertAnswer: text('expert_answer'),
    /** When the owner added it as a Q&A source (the source's id), or dismissed it. */
    resolvedSourceId: text('resolved_source_id'),
    lastAskedAt: integer('last_asked_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('knowledge_gaps_question').on(table.workspaceId, table.normalized),
    index('knowledge_gaps_recent_idx').on(table.workspaceId, table.lastAskedAt),
    check('knowledge_gap_counted', sql`${table.count} >= 1`),
  ],
);
