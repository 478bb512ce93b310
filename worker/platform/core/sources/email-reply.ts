/**
 * A visitor's reply by email (docs/design/email.md) as a source of demand: the visitor of a
 * channel's conversation, like intake (admission by the channel, its rate limit, its guard, the
 * claimer gets the message), except that the conversation is the one the reply address named and
 * no new conversation can start. It runs through the one execution core, with its audit and events.
 */
import type { Services } from '../../../lib/services';
import { ApiError } from '../../../lib/errors';
import type { ActiveChannel } from '../../channels';
import { findChannelConversationById } from '../../conversations';
import { runExecution } from '../execute';
import { channelSource } from './channel';

export interface EmailReplyCommand {
  channel: ActiveChannel;
  conversationId: string;
  text: string;
}

/** Adds the reply to its conversation as a visitor message; answers the new message's id. */
export async function runEmailReply(services: Services, command: EmailReplyCommand): Promise<string | undefined> {
  const base = channelSource({
    channel: command.channel,
    request: { trigger: 'consultation', message: { text: command.text } },
    // The rate limit counts per conversation: every reply to it comes from the same mail system.
    clientIp: `email:${command.conversationId}`,
    origin: null,
  });
  const outcome = await runExecution(
    services,
    {
      ...base,
      findConversation: (db) => findChannelConversationById(db, command.channel.id, command.conversationId),
      newConversation: () => {
        throw new ApiError('not_found', 'The conversation of this reply address no longer exists.');
      },
    },
    { domain: command.channel.domain, text: command.text },
  );
  return outcome.messages?.find((message) => message.role === 'visitor')?.message_id;
}
