/**
 * Answers written by a model (docs/design/knowledge.md), when the deployment configured one: the
 * model reads only the retrieved passages, numbered, answers in the visitor's language and cites
 * them as [n]. An answer that cites nothing retrieved, says it cannot answer, fails or takes over
 * 5 s is not used: the extractive answer stands. Retrieval and its threshold decide whether there
 * is an answer at all; the model only words it.
 */
import type { AnswerModel, ChatMessage } from '../../lib/answer-model';
import type { Language } from '../../lib/i18n';
import type { Citation, Passage } from './answer';

/** The longest a model may take before the extractive answer is given instead. */
export const MODEL_TIMEOUT_MS = 5_000;
/** How many of the best passages the model reads. */
export const MODEL_PASSAGES = 4;
/** What the model says when the passages do not answer the question. */
const CANNOT = 'NONE';

/** Asks the model, within MODEL_TIMEOUT_MS; null on any failure (the caller falls back). */
async function completeInTime(model: AnswerModel, messages: ChatMessage[]): Promise<string | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), MODEL_TIMEOUT_MS);
  try {
    return await model.complete(messages, controller.signal);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** A language's name in English, as a prompt says it ("German"). */
const englishName = (language: Language) =>
  new Intl.DisplayNames(['en'], { type: 'language' }).of(language) ?? language;

/** Where a passage is: its title and headings ("Shop help › Returns"), the title said once. */
const labelOf = (passage: Passage) =>
  [...new Set([passage.title, ...passage.headings.split(' › ')].filter(Boolean))].join(' › ');

/** The excerpt a citation shows of its passage. */
const excerptOf = (body: string) => (body.length > 200 ? `${body.slice(0, 199)}…` : body);

/** A citation of a passage, titled with its innermost heading. */
export function citationOf(passage: Passage, excerpt: string): Citation {
  return {
    source_id: passage.sourceId,
    title: passage.headings ? `${passage.title} › ${passage.headings.split(' › ').at(-1)}` : passage.title,
    url: passage.url,
    excerpt: excerptOf(excerpt),
  };
}

/**
 * The model's answer from the best passages, with the passages it cited, or null when it cited
 * none of them (or failed, or was too slow).
 */
export async function modelAnswer(
  model: AnswerModel,
  question: string,
  passages: Passage[],
  language: Language,
): Promise<{ answer: string; citations: Citation[] } | null> {
  const read = passages.slice(0, MODEL_PASSAGES);
  if (read.length === 0) return null;
  const numbered = read.map((passage, index) => `[${index + 1}] ${labelOf(passage)}\n${passage.body}`).join('\n\n');
  const reply = await completeInTime(model, [
    {
      role: 'system',
      content:
        `Answer the question only from the numbered passages, in ${englishName(language)}, in at most ` +
        'four sentences. Cite each passage you use as [n]. Never add what the passages do not say. If they do ' +
        `not answer the question, reply exactly ${CANNOT}.`,
    },
    { role: 'user', content: `${numbered}\n\nQuestion: ${question}` },
  ]);
  const answer = reply?.trim();
  if (!answer || answer.startsWith(CANNOT)) return null;
  const cited = [...new Set([...answer.matchAll(/\[(\d{1,2})\]/g)].map((match) => Number(match[1])))].filter(
    (number) => number >= 1 && number <= read.length,
  );
  if (cited.length === 0) return null;
  return {
    answer: answer.slice(0, 1_200),
    citations: cited.map((number) => citationOf(read[number - 1]!, read[number - 1]!.body)),
  };
}

/** The question in English (the knowledge's language when none is named), or null. */
export async function translatedQuestion(model: AnswerModel, question: string): Promise<string | null> {
  const reply = await completeInTime(model, [
    {
      role: 'system',
      content: 'Translate the user’s question into English. Reply with the translation only, nothing else.',
    },
    { role: 'user', content: question },
  ]);
  const translated = reply?.trim().split('\n')[0]?.slice(0, 500);
  return translated && translated !== question ? translated : null;
}
