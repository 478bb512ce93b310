/**
 * The questions the knowledge declined (docs/design/knowledge.md), counted per workspace and
 * wording: what an owner should add. When an expert then answers one in its conversation, the
 * answer is kept beside it, so the owner adds it as a Q&A source in one step.
 */
import { and, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { type Database, newIdsInStatement, schema } from '../../lib/db';
import { iso } from '../../lib/periods';
import { ApiError } from '../../lib/errors';
import type { AuditContext } from '../audit';
import type { SourceView } from './schemas';
import { createSource, type KnowledgeDeps } from './sources';
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

/**
 * Fills a gap: its question and the owner's answer (an expert's, edited or not) become a Q&A
 * source, and the gap is resolved by it. Another workspace's gap is 404.
 */
export async function answerGap(
  db: Database,
  audit: AuditContext & { workspaceId: string },
  gapId: string,
  answer: string,
  deps: KnowledgeDeps,
): Promise<SourceView> {
  const gap = await db
    .select()
    .from(knowledgeGaps)
    .where(and(eq(knowledgeGaps.id, gapId), eq(knowledgeGaps.workspaceId, audit.workspaceId)))
    .get();
  if (!gap) throw new ApiError('not_found', `No question ${gapId} in this workspace.`);
  const source = await createSource(db, audit, { kind: 'qa', question: gap.question, answer }, deps);
  await db.update(knowledgeGaps).set({ resolvedSourceId: source.source_id }).where(eq(knowledgeGaps.id, gap.id));
  return source;
}
