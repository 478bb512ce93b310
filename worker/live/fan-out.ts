/**
 * Committed events to the live rooms: after a change commits (jobs/publish.ts), each event that a
 * conversation's participants see becomes frames, one `deliver` call per conversation. D1 already
 * holds every message, so a failed delivery loses nothing: clients resume from their last message.
 */
import type { LiveRevocation } from '../platform/conversations';
import type { CommittedEvent } from '../platform/events';
import type { CloseTarget, ConversationRoom } from './conversation-room';
import type { ServerFrame } from './frames';

interface RoomDelivery {
  frames: ServerFrame[];
  close?: CloseTarget;
}

/** The frames each conversation's room gets from these events (pure). */
export function framesByConversation(committed: CommittedEvent[]): Map<string, RoomDelivery> {
  const rooms = new Map<string, RoomDelivery>();
  const room = (conversationId: string) => {
    const delivery = rooms.get(conversationId) ?? { frames: [] };
    rooms.set(conversationId, delivery);
    return delivery;
  };
  for (const event of committed) {
    if (event.type === 'conversation.message_created') {
      const { conversation_id, message_id, role, author_name, text, sources, created_at } = event.data;
      // A knowledge answer carries its sources on every copy: the socket's may be the first shown.
      room(conversation_id).frames.push({
        type: 'message',
        message: { message_id, role, author_name, text, ...(sources ? { sources } : {}), created_at },
      });
    } else if (event.type === 'lead.claimed' && event.data.conversation_id) {
      const name = event.data.claimed_by.name ?? 'An expert';
      const delivery = room(event.data.conversation_id);
      delivery.frames.push({ type: 'lead', status: 'claimed', claimed_by_name: name });
      // A new claimer: any other expert's socket on this conversation is over.
      delivery.close = { role: 'provider', reason: 'revoked', except: event.data.claimed_by.provider_id };
    } else if (event.type === 'lead.status_changed' && event.data.conversation_id) {
      const { to, changed_by } = event.data;
      const delivery = room(event.data.conversation_id);
      delivery.frames.push({
        type: 'lead',
        status: to,
        claimed_by_name: to === 'open' ? null : (changed_by.name ?? 'An expert'),
      });
      // A released lead ends its former claimer's session; a lead won or lost ends everyone's.
      if (to === 'open') delivery.close = { role: 'provider', reason: 'released' };
      if (to === 'won' || to === 'lost')
        delivery.close = { role: 'all', reason: to === 'won' ? 'lead_won' : 'lead_lost' };
    } else if (event.type === 'lead.released' && event.data.reason === 'claim_sla' && event.data.conversation_id) {
      // The claim lapsed (its manual release comes with lead.status_changed): the same as a release.
      const delivery = room(event.data.conversation_id);
      delivery.frames.push({ type: 'lead', status: 'open', claimed_by_name: null });
      delivery.close = { role: 'provider', reason: 'released' };
    }
  }
  return rooms;
}

/** Delivers the frames of these events to their rooms, in parallel; answers how many rooms were told. */
export async function fanOutLive(
  namespace: DurableObjectNamespace<ConversationRoom>,
  committed: CommittedEvent[],
): Promise<number> {
  const rooms = framesByConversation(committed);
  await Promise.all(
    [...rooms].map(([conversationId, delivery]) =>
      roomOf(namespace, conversationId).deliver(delivery.frames, delivery.close),
    ),
  );
  return rooms.size;
}

/** Closes the sockets (and drops the tickets) of participants who lost the right, per conversation. */
export async function revokeLive(
  namespace: DurableObjectNamespace<ConversationRoom>,
  revocations: LiveRevocation[],
): Promise<number> {
  await Promise.all(
    revocations.map(({ conversationId, participant }) =>
      roomOf(namespace, conversationId).close({ participant, reason: 'revoked' }),
    ),
  );
  return revocations.length;
}

/** The room of one conversation. */
export function roomOf(
  namespace: DurableObjectNamespace<ConversationRoom>,
  conversationId: string,
): DurableObjectStub<ConversationRoom> {
  return namespace.get(namespace.idFromName(conversationId));
}
