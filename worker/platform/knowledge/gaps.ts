/**
 * The questions the knowledge declined (docs/design/knowledge.md), counted per workspace and
 * wording: what an owner should add. When an expert then answers one in its conversation, the
 * answer is kept beside it, so the owner adds it as a Q&A source in one step.
 */
import { and, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { type Database, newIdsInStatement, schema } from '../../lib/db';
import { iso } from '../../lib/periods';
import { wordsOf } from './words';

const { knowledgeGaps } = schema;

/** A question's wording as gaps count it: its words, lower case, accents folded, spaces single. */
export function normalizedQuestion(question: string): string {
  return wordsOf(question).join(' ').slice(0, 300);
}

/** Counts a declined question (one statement, for the execution's batch). */
export function gapWrite(
  db: Database,
  gap: { workspaceId: string; question: string; conversationId: string | null },
  now: number,
) {
  const normalized = normalizedQuestion(gap.question);
  return db.run(sql`INSERT INTO ${knowledgeGaps}
      (id, workspace_id, normalized, question, count, last_conversation_id, last_asked_at, created_at)
    VALUES (${newIdsInStatement('kgap', now)}, ${gap.workspaceId}, ${normalized}, ${gap.question.slice(0, 500)}, 1,
      ${gap.conversationId}, ${now}, ${now})
    ON CONFLICT (workspace_id, normalized) DO UPDATE SET count = count + 1,
      last_conversation_id = coalesce(excluded.last_conversation_id, last_conversation_id),
      last_asked_at = excluded.last_asked_at`);
}

/**
 * An expert's reply in a conversation whose question the knowledge declined: kept on the gap (the
 * first one), for the owner to add as the answer.
 */
export function expertAnswerWrite(db: Database, conversationId: string, answer: string, when: SQL = sql`1`) {
  return db
    .update(knowledgeGaps)
    .set({ expertAnswer: answer.slice(0, 10_000) })
    .where(and(eq(knowledgeGaps.lastConversationId, conversationId), isNull(knowledgeGaps.expertAnswer), when));
}

/** The workspace's open gaps, most asked first (at most 100). */
export async function listGaps(db: Database, workspaceId: string) {
  const rows = await db
    .select()
    .from(knowledgeGaps)
    .where(and(eq(knowledgeGaps.workspaceId, workspaceId), isNull(knowledgeGaps.resolvedSourceId)))
    .orderBy(desc(knowledgeGaps.count), desc(knowledgeGaps.lastAskedAt))
    .limit(100);
  return rows.map((row) => ({
    gap_id: row.id,
    question: row.question,
    count: row.count,
    expert_answer: row.expertAnswer,
    last_asked_at: iso(row.lastAskedAt),
  }));
}
