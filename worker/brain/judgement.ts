/**
 * Judgement (docs/design/providers-and-leads.md): the topic of a demand, matched against the topics that
 * active providers accept (else `general`), and its urgency, from its words and its trigger.
 */
import { containsPhrase } from './risk';
import type { IntakeTrigger, Urgency } from './types';

/** The most specific provider topic the text names (the longest match), else `general`. */
export function judgeTopic(text: string | undefined, providerTopics: string[]): string {
  if (!text) return 'general';
  const named = providerTopics
    .filter((topic) => containsPhrase(text, topic))
    .sort((a, b) => b.length - a.length || a.localeCompare(b));
  return named[0] ?? 'general';
}

const LOW = ['no rush', 'not urgent', 'whenever', 'next month', 'someday', 'no hurry'];
const HIGH = [
  'urgent',
  'urgently',
  'asap',
  'as soon as possible',
  'today',
  'tonight',
  'immediately',
  'emergency',
  'right away',
  'deadline',
];

/** How soon the demand needs an answer. A handoff is at least `normal`. */
export function judgeUrgency(text: string | undefined, trigger: IntakeTrigger | undefined): Urgency {
  const words = text ?? '';
  let urgency: Urgency = 'normal';
  if (LOW.some((phrase) => containsPhrase(words, phrase))) urgency = 'low';
  else if (HIGH.some((phrase) => containsPhrase(words, phrase))) urgency = 'high';
  if (trigger === 'handoff' && urgency === 'low') urgency = 'normal';
  return urgency;
}
