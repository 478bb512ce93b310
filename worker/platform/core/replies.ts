/**
 * What a caller reads, in its source's words (the brain decides, it does not write copy): the
 * sentence a widget visitor reads, the sentence an API caller reads, and the API's `result`.
 */
import { demandReference, type ExecutedPlan } from '../../brain';
import { type Language, visitorMessages } from '../../lib/i18n';
import { handledByOf } from './events';

const inTopic = (topic: string) => (topic === 'general' ? '' : ` in ${topic}`);

/** What a widget or hosted-inbox visitor reads, in the conversation's language (the catalogs' `reply_*`). */
export function visitorReply(plan: ExecutedPlan, language: Language): string {
  if (plan.path === 'agent') return plan.agentAnswer?.reply ?? '';
  // The claimer answers in the conversation itself: no automatic reply stands between them.
  if (plan.toClaimer && plan.disposition !== 'rejected') return '';
  const say = visitorMessages(language);
  const reference = demandReference(plan.demand.id);
  const { topic } = plan;
  if (plan.disposition === 'rejected') return say.reply_rejected();
  // The knowledge declined a question in another language than its own: say why, then what follows.
  const searched = otherLanguageNote(plan, language);
  if (plan.disposition === 'held') return searched + say.reply_held({ reference });
  const ask = plan.askForContact ? ` ${say.reply_ask_contact()}` : '';
  // A later question while the lead waits for a claim: it is with the experts, and the visitor
  // always reads so (with the form while no contact was left), never a silence.
  const waiting = plan.lead?.action === 'update';
  if (waiting && plan.trigger === 'consultation') return searched + say.reply_waiting() + ask;
  // Who follows up: an expert in the topic, an expert, or (nobody matched yet) the right one.
  const who = plan.matchedProviders > 0 ? (topic === 'general' ? 'expert' : 'topic') : 'search';
  if (plan.trigger === 'lead_capture') {
    // No name in the reply: it is stored in the transcript, which every expert in scope reads
    // before anyone claims the lead, and contact details reach the claimer only.
    return say.reply_lead_capture({ who: topic === 'general' ? 'expert' : 'topic', topic, reference });
  }
  if (plan.trigger === 'handoff') return searched + say.reply_handoff({ who, topic, reference }) + ask;
  return searched + say.reply_received({ who, topic, reference }) + ask;
}

/** "Our help pages are written in English…", in the visitor's language, and a space; or nothing. */
function otherLanguageNote(plan: ExecutedPlan, language: Language): string {
  const writtenIn = plan.knowledge && !plan.knowledge.answered ? plan.knowledge.writtenIn : undefined;
  if (!writtenIn || writtenIn === language) return '';
  const name = languageName(writtenIn, language);
  return name ? `${visitorMessages(language).knowledge_other_language({ language: name })} ` : '';
}

/** A language's name in another language ("Englisch" for `en` in `de`), or null when unknown. */
function languageName(code: string, inLanguage: Language): string | null {
  try {
    const name = new Intl.DisplayNames([inLanguage], { type: 'language' }).of(code);
    // Names are written as a sentence's word in the catalogs: "in English", "en anglais".
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}

/** What an API caller reads. */
export function callerReply(plan: ExecutedPlan): string {
  if (plan.path === 'agent') return plan.agentAnswer?.reply ?? '';
  const demandId = plan.demand.id;
  const reference = demandReference(demandId);
  if (plan.disposition === 'rejected')
    return `Your request was recorded as ${demandId} (${reference}) but not passed on.`;
  if (plan.disposition === 'held')
    return `Your request was recorded as ${demandId} (${reference}) and is held for review.`;
  if (!plan.lead) return `Your request was recorded as ${demandId} (${reference}).`;
  const experts = plan.matchedProviders === 1 ? '1 expert' : `${plan.matchedProviders} experts`;
  return plan.matchedProviders > 0
    ? `Your request was recorded as ${demandId} (${reference}) and offered to ${experts}${inTopic(plan.topic)}; ` +
        'one will pick it up.'
    : `Your request was recorded as ${demandId} (${reference}); it waits for an expert who covers ` +
        `${plan.topic === 'general' ? 'this domain' : plan.topic}.`;
}

/**
 * The envelope's `output.result` (docs/design/providers-and-leads.md). The lead path: `{demand_id, reference,
 * lead_id?, disposition, reasons, topic, urgency, matched_providers, reply}`; the agent path:
 * `{demand_id, reference, disposition, topic, urgency, handled_by, output, reply}`.
 */
export function resultOf(plan: ExecutedPlan, reply: string): Record<string, unknown> {
  const { demand, topic, urgency, disposition } = plan;
  const reference = demandReference(demand.id);
  if (plan.path === 'agent' && plan.handledBy) {
    return {
      demand_id: demand.id,
      reference,
      disposition,
      topic,
      urgency,
      handled_by: handledByOf(plan.handledBy),
      output: plan.agentAnswer?.output ?? {},
      reply,
    };
  }
  return {
    demand_id: demand.id,
    reference,
    ...(plan.lead ? { lead_id: plan.lead.id } : {}),
    disposition,
    reasons: plan.reasons,
    topic,
    urgency,
    // An answer never claims an offer that was not made: without a lead, nobody was offered it.
    matched_providers: plan.lead ? plan.matchedProviders : 0,
    reply,
  };
}
