/**
 * The Worker's `email` entry point (Cloudflare Email Routing): a visitor's reply to a continuation
 * email becomes a visitor message of its conversation (docs/design/email.md), through the one
 * execution core, and the claimer sees it live. Anything else is rejected with a reason, which the
 * sender's mail system reports to them; nothing about the message is logged but its outcome.
 */
import { type Bindings, emailLinkOrigin } from '../env';
import { buildServices } from '../lib/services';
import { logLine } from '../lib/request-context';
import { findActiveChannel } from '../platform/channels';
import { runEmailReply } from '../platform/core';
import { fromTheVisitor, INBOUND_MAX_BYTES, readInboundReply, replyKeyOf, replyTarget } from '../platform/email';
import { publishCommittedEvents } from './publish';

/** What became of an incoming email: `added` with the message, or `rejected` with the reason. */
export type InboundOutcome = { added: string } | { rejected: string };

/** Handles one incoming email. */
export async function handleInboundEmail(message: ForwardableEmailMessage, env: Bindings): Promise<InboundOutcome> {
  const outcome = await receive(message, env).catch((error: unknown) => {
    logLine({
      level: 'error',
      message: 'inbound_email_failed',
      error: error instanceof Error ? error.message : String(error),
    });
    return { rejected: 'The reply could not be added to the conversation. Please try again later.' };
  });
  if ('rejected' in outcome) await message.setReject(outcome.rejected);
  logLine({ level: 'info', message: 'inbound_email', outcome: 'added' in outcome ? 'added' : 'rejected' });
  return outcome;
}

async function receive(message: ForwardableEmailMessage, env: Bindings): Promise<InboundOutcome> {
  const entry = buildServices(env, { kind: 'email' });
  const { settings, db } = entry;
  const key = replyKeyOf(message.to, settings.MAIL_REPLY_DOMAIN);
  if (!key) return { rejected: 'This address does not take messages.' };
  if (message.rawSize > INBOUND_MAX_BYTES) return { rejected: 'The message is too large (512 KB at most).' };
  const target = await replyTarget(db, key, entry.clock.now());
  if (!target) return { rejected: 'This reply address is not valid or has expired.' };
  if (target.leadStatus === 'won' || target.leadStatus === 'lost') {
    return { rejected: 'This conversation is closed: its request was completed.' };
  }
  const reply = await readInboundReply(message.raw);
  if ('refuse' in reply) return { rejected: reply.refuse };
  if (!fromTheVisitor(target.contactEmail, message.from, reply.from)) {
    return { rejected: 'Replies to this address are taken only from the address the email was sent to.' };
  }
  const channel = await findActiveChannel(db, target.channelKey);
  if (!channel) return { rejected: 'This conversation is closed.' };
  // An email has no request: its links' origin is the configured one, else (local development) the
  // loopback origin of the email it answers.
  const linkOrigin = entry.mail.linkOrigin || emailLinkOrigin(settings, target.linkOrigin ?? undefined);
  const services = { ...entry, mail: { ...entry.mail, linkOrigin } };
  const messageId = await runEmailReply(services, {
    channel,
    conversationId: target.conversationId,
    text: reply.text,
  });
  await publishCommittedEvents(db, env);
  return messageId ? { added: messageId } : { rejected: 'The reply could not be added to the conversation.' };
}
