/**
 * The knowledge phase of an execution (docs/design/knowledge.md): a channel whose knowledge is on
 * asks the workspace's knowledge first, in one D1 read before anything else is called; a
 * confident answer is the reply, a declined question goes on to the agents and experts as before
 * and is counted as a gap. The answer is kept across the execution's tries, so a retry reads it
 * once.
 */
import type { BrainInput, KnowledgeReply } from '../../brain';
import type { Assessment } from '../../brain';
import type { AnswerModel } from '../../lib/answer-model';
import type { Database } from '../../lib/db';
import type { Language } from '../../lib/i18n';
import { askKnowledge, type KnowledgeAnswer } from '../knowledge';

/** A channel's knowledge, as its source hands it over. */
export interface KnowledgeSetting {
  enabled: boolean;
  minConfidence: number;
  /** The channel's brand: whose help the visitor reads the answer from. */
  brand: string;
}

/** Whether this message goes to the knowledge: a visitor's routed question that nobody has taken yet. */
export function mayAskKnowledge(input: BrainInput, assessment: Assessment): boolean {
  return (
    assessment.disposition === 'routed' &&
    input.origin.kind === 'channel' &&
    input.origin.trigger === 'consultation' &&
    !input.conversation?.personHasIt &&
    Boolean(input.text?.trim())
  );
}

/** One execution's question to the knowledge, asked at most once across its tries. */
export class KnowledgePhase {
  private answer: KnowledgeAnswer | undefined;

  constructor(
    private readonly db: Database,
    private readonly workspaceId: string,
    readonly setting: KnowledgeSetting,
    private readonly model: AnswerModel | null = null,
  ) {}

  /** The knowledge's answer to the question, in the visitor's language. */
  async ask(question: string, language: Language): Promise<KnowledgeAnswer> {
    this.answer ??= await askKnowledge(this.db, this.workspaceId, question, {
      language,
      minConfidence: this.setting.minConfidence,
      model: this.model,
    });
    return this.answer;
  }

  /**
   * The knowledge's language, when it declined a question asked in another and no model translated
   * it: the words could not match, and the visitor is told so (in their language).
   */
  otherLanguageOf(answer: KnowledgeAnswer, language: Language): string | undefined {
    if (answer.answer !== null || this.model) return undefined;
    const written = answer.knowledge_language;
    return written && written !== language ? written : undefined;
  }

  /** The reply the brain may give from an answer, or null when the knowledge declined. */
  replyOf(answer: KnowledgeAnswer): KnowledgeReply | null {
    if (answer.answer === null) return null;
    return {
      answer: answer.answer,
      output: { answer: answer.answer, citations: answer.citations, confidence: answer.confidence },
      sources: answer.citations.map((citation) => ({ title: citation.title, url: citation.url })),
      brand: this.setting.brand,
    };
  }
}
