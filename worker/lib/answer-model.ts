/**
 * A language model the platform may ask to write an answer (docs/design/knowledge.md): Workers AI
 * through the AI binding, or an OpenAI-compatible endpoint with its key, as the deployment
 * configures; none by default and in every local run. One call, one string back, bounded in time.
 */
import type { Bindings, Settings } from '../env';

/** One message of a chat with the model. */
export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** A model that completes a chat. */
export interface AnswerModel {
  /** Its name, for the logs and the answer's `chosen_by` context. */
  name: string;
  /** The model's reply to the chat; throws on a failure or when `signal` aborts. */
  complete(messages: ChatMessage[], signal: AbortSignal): Promise<string>;
}

/** The model the deployment configured, or null (the extractive answers need none). */
export function answerModelOf(env: Bindings, settings: Settings): AnswerModel | null {
  const name = settings.ANSWER_MODEL;
  if (settings.ANSWER_MODEL_URL) {
    const url = `${settings.ANSWER_MODEL_URL}/chat/completions`;
    return {
      name: name ?? 'default',
      async complete(messages, signal) {
        const response = await fetch(url, {
          method: 'POST',
          signal,
          headers: {
            'Content-Type': 'application/json',
            ...(settings.ANSWER_MODEL_KEY ? { Authorization: `Bearer ${settings.ANSWER_MODEL_KEY}` } : {}),
          },
          body: JSON.stringify({ model: name ?? 'default', messages, temperature: 0, max_tokens: 400 }),
        });
        if (!response.ok) throw new Error(`the answer model answered ${response.status}`);
        const body = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== 'string') throw new Error('the answer model answered no text');
        return content;
      },
    };
  }
  const ai = env.AI;
  if (ai && name) {
    return {
      name,
      async complete(messages, signal) {
        const aborted = new Promise<never>((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('the answer model took too long'))),
        );
        const result = (await Promise.race([ai.run(name, { messages }), aborted])) as { response?: unknown };
        if (typeof result?.response !== 'string') throw new Error('the answer model answered no text');
        return result.response;
      },
    };
  }
  return null;
}
