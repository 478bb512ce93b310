/**
 * Asking a workspace's knowledge (docs/design/knowledge.md): one D1 statement finds the best
 * passages (FTS5 MATCH over the question's quoted words, within the workspace's id range of the
 * index, BM25 with the title weighing most, then the headings), and the answer is composed from
 * them: extractive by default, by a model when one is configured (model.ts), never a guess.
 */
import { sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { type Language, visitorMessages } from '../../lib/i18n';
import { DEFAULT_MIN_CONFIDENCE, extractiveAnswer, type KnowledgeAnswer, type Passage } from './answer';
import { CHUNKS_PER_WORKSPACE } from './indexing';
import { matchQuery } from './words';

const { knowledgeChunks, knowledgeSpaces } = schema;

/** How many passages a question reads: the best, and enough others to judge the margin. */
const PASSAGES = 8;

/**
 * The statement that finds a question's passages in one workspace, best first, or null when the
 * question has no words to search for. Its rowid range is the workspace's: FTS5 reads only that
 * part of each word's postings, and the join checks the workspace again.
 */
export function passagesQuery(db: Database, workspaceId: string, question: string) {
  const match = matchQuery(question);
  if (!match) return null;
  const ordinal = sql`(SELECT ordinal FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId})`;
  return db.all<Passage>(sql`SELECT c.source_id AS "sourceId", c.title, c.headings, c.body, c.url
    FROM knowledge_fts JOIN ${knowledgeChunks} c ON c.id = knowledge_fts.rowid
    WHERE knowledge_fts MATCH ${match}
      AND knowledge_fts.rowid >= ${ordinal} * ${CHUNKS_PER_WORKSPACE}
      AND knowledge_fts.rowid < (${ordinal} + 1) * ${CHUNKS_PER_WORKSPACE}
      AND c.workspace_id = ${workspaceId}
    ORDER BY bm25(knowledge_fts, 4.0, 2.0, 1.0)
    LIMIT ${PASSAGES}`);
}

/** Composes the answer to a question from its passages (extractive), in the asker's language. */
export function answerFrom(
  question: string,
  passages: Passage[],
  options: { language: Language; minConfidence?: number },
): KnowledgeAnswer {
  const messages = visitorMessages(options.language);
  return extractiveAnswer(question, passages, {
    minConfidence: options.minConfidence ?? DEFAULT_MIN_CONFIDENCE,
    language: options.language,
    from: (title) => messages.knowledge_from({ title }),
  });
}

/** Asks a workspace's knowledge: one round trip, then the answer or the reason it is declined. */
export async function askKnowledge(
  db: Database,
  workspaceId: string,
  question: string,
  options: { language: Language; minConfidence?: number },
): Promise<KnowledgeAnswer> {
  const query = passagesQuery(db, workspaceId, question);
  const passages = query ? ((await query) as Passage[]) : [];
  return answerFrom(question, passages, options);
}
