/**
 * Asking a workspace's knowledge (docs/design/knowledge.md): one D1 statement finds the best
 * passages (FTS5 MATCH over the question's quoted words, within the workspace's id range of the
 * index, BM25 with the title weighing most, then the headings), and the answer is composed from
 * them: extractive by default, by a model when one is configured (model.ts), never a guess.
 */
import { sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { type Language, visitorMessages } from '../../lib/i18n';
import {
  DEFAULT_MIN_CONFIDENCE,
  extractiveAnswer,
  type KnowledgeAnswer,
  type Passage,
  type WordRarity,
} from './answer';
import { CHUNKS_PER_WORKSPACE } from './indexing';
import { contentWords, matchQuery } from './words';

const { knowledgeChunks, knowledgeSpaces } = schema;

/** How many passages a question reads: the best, and enough others to judge the margin. */
const PASSAGES = 8;

/** A passage as the statement returns it: with the workspace's word counts (the same on every row). */
type PassageRow = Passage & { rarity: string };

/**
 * The statement that finds a question's passages in one workspace, best first, or null when the
 * question has no words to search for. Its rowid range is the workspace's: FTS5 reads only that
 * part of each word's postings, and the join checks the workspace again. Each row also carries, as
 * JSON, how many of the workspace's passages there are and how many hold each of the question's
 * words (WordRarity): counted in the same range, so the work is the workspace's size, not the index's.
 */
export function passagesQuery(db: Database, workspaceId: string, question: string) {
  const match = matchQuery(question);
  if (!match) return null;
  const ordinal = sql`(SELECT ordinal FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId})`;
  const from = sql`${ordinal} * ${CHUNKS_PER_WORKSPACE}`;
  const to = sql`(${ordinal} + 1) * ${CHUNKS_PER_WORKSPACE}`;
  const holding = contentWords(question).map(
    (word) => sql`(SELECT count(*) FROM knowledge_fts WHERE knowledge_fts MATCH ${`"${word.replaceAll('"', '""')}"`}
      AND rowid >= ${from} AND rowid < ${to})`,
  );
  return db.all<PassageRow>(sql`SELECT c.source_id AS "sourceId", c.title, c.headings, c.body, c.url,
      json_array((SELECT count(*) FROM ${knowledgeChunks} WHERE id >= ${from} AND id < ${to}),
        ${sql.join(holding, sql`, `)}) AS rarity
    FROM knowledge_fts JOIN ${knowledgeChunks} c ON c.id = knowledge_fts.rowid
    WHERE knowledge_fts MATCH ${match}
      AND knowledge_fts.rowid >= ${from}
      AND knowledge_fts.rowid < ${to}
      AND c.workspace_id = ${workspaceId}
    ORDER BY bm25(knowledge_fts, 4.0, 2.0, 1.0)
    LIMIT ${PASSAGES}`);
}

/** The word counts a row of passagesQuery carries, by the question's words. */
export function rarityOf(question: string, rows: PassageRow[]): WordRarity | undefined {
  const counts = rows[0] ? (JSON.parse(rows[0].rarity) as number[]) : null;
  if (!counts) return undefined;
  const words = contentWords(question);
  return {
    passages: counts[0] ?? 0,
    of: Object.fromEntries(words.map((word, index) => [word, counts[index + 1] ?? 0])),
  };
}

/** Composes the answer to a question from its passages (extractive), in the asker's language. */
export function answerFrom(
  question: string,
  passages: Passage[],
  options: { language: Language; minConfidence?: number; rarity?: WordRarity },
): KnowledgeAnswer {
  const messages = visitorMessages(options.language);
  return extractiveAnswer(question, passages, {
    minConfidence: options.minConfidence ?? DEFAULT_MIN_CONFIDENCE,
    language: options.language,
    from: (title) => messages.knowledge_from({ title }),
    ...(options.rarity ? { rarity: options.rarity } : {}),
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
  const rows = query ? ((await query) as PassageRow[]) : [];
  const rarity = rarityOf(question, rows);
  return answerFrom(question, rows, { ...options, ...(rarity ? { rarity } : {}) });
}
