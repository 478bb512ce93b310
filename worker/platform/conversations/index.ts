/**
 * Conversations (docs/design/providers-and-leads.md): a visitor's session or an API session_id, its messages,
 * its one demand and at most one lead, and where its visitor came from.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  type ConversationStart,
  type ConversationState,
  conversationTurnWrites,
  findApiConversation,
  findChannelConversation,
  findChannelConversationById,
  newVisitorToken,
  type StoredMessage,
} from './service';
export { messageSchema, type MessageView, type VisitorThread, visitorThreadSchema } from './schemas';
export {
  ownerThread,
  THREAD_PAGE,
  threadAfter,
  threadQuery,
  toMessageViews,
  visitorConversation,
  visitorReadUpTo,
  visitorThread,
} from './thread';
export {
  type LiveParticipant,
  type LiveRevocation,
  messageInConversation,
  participantMayListen,
  revokeProviderLive,
  takeLiveRevocations,
} from './live-access';
export {
  CONVERSATION_KEY_TTL_MS,
  conversationOfReplyKey,
  mintConversationKeys,
  openedByVisitorToken,
  purgeExpiredConversationKeys,
} from './keys';
