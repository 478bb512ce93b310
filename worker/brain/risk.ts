/**
 * Risk control (docs/design/providers-and-leads.md), the first step of every plan: it decides whether a
 * demand is offered to providers (`routed`), kept for a person to look at (`held`), or refused
 * (`rejected`, stored for audit and answered politely), with stable reason codes.
 */
import type { Disposition } from './types';
import { TtlCache } from '../lib/ttl-cache';

export interface RiskInput {
  text?: string;
  hasStructuredInput: boolean;
  /** A contact form may come without a message. */
  messageOptional: boolean;
  honeypot: boolean;
  blockedTerms: string[];
  maxLength: number;
}

export interface RiskVerdict {
  disposition: Disposition;
  reasons: string[];
}

const REJECTING = new Set(['honeypot', 'empty_message', 'too_long']);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiled phrase patterns: every execution tests the same few dozen phrases (bounded, in case terms churn). */
const phrasePatterns = new TtlCache<RegExp>(Number.POSITIVE_INFINITY, 2_000);

/** Whether `phrase` stands in `text` as whole words (any case, any script). */
export function containsPhrase(text: string, phrase: string): boolean {
  let pattern = phrasePatterns.peek(phrase);
  if (!pattern) {
    pattern = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(phrase.toLowerCase())}($|[^\\p{L}\\p{N}])`, 'u');
    phrasePatterns.set(phrase, pattern);
  }
  return pattern.test(text.toLowerCase());
}

/** The verdict on one message. */
export function assessRisk(input: RiskInput): RiskVerdict {
  const text = input.text?.trim() ?? '';
  const reasons: string[] = [];
  if (input.honeypot) reasons.push('honeypot');
  if (!text && !input.hasStructuredInput && !input.messageOptional) reasons.push('empty_message');
  if (text.length > input.maxLength) reasons.push('too_long');
  if (input.blockedTerms.some((term) => term.trim() && containsPhrase(text, term.trim()))) reasons.push('blocked_term');
  if ((text.match(/https?:\/\/|www\./gi) ?? []).length >= 4) reasons.push('too_many_links');
  if (/(.)\1{9,}/u.test(text)) reasons.push('repeated_characters');
  const letters = text.match(/\p{L}/gu) ?? [];
  const capitals = text.match(/\p{Lu}/gu) ?? [];
  if (letters.length >= 20 && capitals.length / letters.length > 0.9) reasons.push('all_capitals');
  const disposition: Disposition = reasons.some((reason) => REJECTING.has(reason))
    ? 'rejected'
    : reasons.length > 0
      ? 'held'
      : 'routed';
  return { disposition, reasons };
}

const SEVERITY: Record<Disposition, number> = { routed: 0, held: 1, rejected: 2 };

/** The stricter of two dispositions: a conversation once held stays held. */
export function stricter(a: Disposition, b: Disposition | null): Disposition {
  return b !== null && SEVERITY[b] > SEVERITY[a] ? b : a;
}
