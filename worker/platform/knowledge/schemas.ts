/** The knowledge's wire shapes (docs/design/knowledge.md): sources, asking, answers, gaps. */
import { z } from '@hono/zod-openapi';
import { displayText } from '../../lib/openapi';
import { KNOWLEDGE_SOURCE_KINDS, KNOWLEDGE_SOURCE_STATUSES, LANGUAGES } from '../../vocabulary';

/** A document's largest content: 1 MB of text. */
export const DOCUMENT_MAX_BYTES = 1024 * 1024;
/** A crawl's largest number of pages. */
export const CRAWL_MAX_PAGES = 500;

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2_000)
  .openapi({ example: 'https://help.example.com/billing' });
const language = z.enum(LANGUAGES).optional().openapi({ description: 'The language the source is written in.' });

const documentSource = z.strictObject({
  kind: z.literal('document'),
  title: displayText({ min: 1, max: 200 }),
  url: httpUrl.optional(),
  content_type: z.enum(['text/markdown', 'text/html', 'text/plain']),
  content: z
    .string()
    .min(1)
    .max(DOCUMENT_MAX_BYTES)
    .refine((content) => new TextEncoder().encode(content).length <= DOCUMENT_MAX_BYTES, 'At most 1 MB of text.'),
  language,
});

const qaSource = z.strictObject({
  kind: z.literal('qa'),
  question: displayText({ min: 3, max: 500 }),
  answer: z.string().trim().min(1).max(10_000),
  url: httpUrl.optional(),
  language,
});

const urlSource = z.strictObject({
  kind: z.literal('url'),
  url: httpUrl,
  crawl: z
    .strictObject({
      mode: z.enum(['page', 'sitemap', 'site']).default('page'),
      max_pages: z.number().int().min(1).max(CRAWL_MAX_PAGES).optional(),
    })
    .optional(),
  language,
});

export const createSourceSchema = z
  .discriminatedUnion('kind', [documentSource, qaSource, urlSource])
  .openapi('KnowledgeSourceCreate', {
    description: 'A document (Markdown, HTML or text, ≤ 1 MB), a Q&A pair, or a URL (a page, a sitemap, a site).',
  });
export type CreateSource = z.infer<typeof createSourceSchema>;

export const sourceSchema = z
  .object({
    source_id: z.string(),
    kind: z.enum(KNOWLEDGE_SOURCE_KINDS),
    title: z.string(),
    url: z.string().nullable(),
    status: z.enum(KNOWLEDGE_SOURCE_STATUSES),
    documents: z.number().int(),
    chunks: z.number().int(),
    bytes: z.number().int(),
    error: z.string().nullable(),
    indexed_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('KnowledgeSource');
export type SourceView = z.infer<typeof sourceSchema>;

export const askSchema = z
  .strictObject({
    question: z.string().trim().min(1).max(2_000),
    language: z.enum(LANGUAGES).optional(),
    channel: z.string().max(64).optional().openapi({ description: "A channel key: its knowledge's threshold." }),
    min_confidence: z
      .number()
      .min(0.05)
      .max(1)
      .optional()
      .openapi({ description: 'The threshold to try (over the channel’s): how an answer would fare at it.' }),
  })
  .openapi('KnowledgeAsk');

export const citationSchema = z
  .object({ source_id: z.string(), title: z.string(), url: z.string().nullable(), excerpt: z.string() })
  .openapi('KnowledgeCitation');

export const answerSchema = z
  .object({
    answer: z.string().nullable(),
    citations: z.array(citationSchema),
    confidence: z.number(),
    declined: z.enum(['no_match', 'low_confidence']).nullable(),
    language: z.string(),
    chosen_by: z.enum(['extractive', 'model']),
    knowledge_language: z
      .string()
      .nullable()
      .optional()
      .openapi({
        description:
          'The language most of the knowledge is written in (null before anything is indexed). Without a model, ' +
          'a question in another language is answered only when its words match.',
      }),
  })
  .openapi('KnowledgeAnswer');

export const gapSchema = z
  .object({
    gap_id: z.string(),
    question: z.string(),
    count: z.number().int(),
    expert_answer: z.string().nullable(),
    last_asked_at: z.string(),
  })
  .openapi('KnowledgeGap');

/** A channel's knowledge setting: asked first, and how sure an answer must be to be given. */
export const channelKnowledgeSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    min_confidence: z.number().min(0.05).max(1).default(0.5),
  })
  .openapi('ChannelKnowledge');
