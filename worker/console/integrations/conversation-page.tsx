/** @jsxImportSource hono/jsx */
/**
 * One conversation of a channel, as its site owner reads it: the whole thread, who wrote each
 * message, and where its lead stands. Read only, and without the visitor's contact details, which
 * reach the expert who claimed the lead and nobody else. Visitor text is rendered as text.
 */
import type { MessageView } from '../../platform/conversations';
import { roleMay } from '../../platform/access';
import { StatusPill, when, WorkspaceLayout, wsQuery, type WorkspacePageProps } from '../shared/layout';

export interface ConversationPageProps extends WorkspacePageProps {
  /** The conversation's id (the erase form's address). */
  conversationId: string;
  channel: { channel_key: string; name: string };
  conversation: {
    reference: string | null;
    started_at: string;
    lead: { status: string; claimed_by_name: string | null } | null;
    messages: MessageView[];
  };
}

function speakerOf(message: MessageView): string {
  if (message.role === 'visitor') return 'Visitor';
  if (message.role === 'system') return 'Platform';
  if (message.role === 'agent') return message.author_name ? `Agent · ${message.author_name}` : 'Agent';
  return message.author_name ? `${message.author_name} (expert)` : 'Expert';
}

/** The read-only conversation page. */
export function ConversationPage(props: ConversationPageProps) {
  const { channel, conversation, current } = props;
  const ws = wsQuery(current.workspaceId);
  const title = `Conversation ${conversation.reference ?? ''}`.trim();
  return (
    <WorkspaceLayout page={props} title={title} active="channels">
      <p class="eyebrow">
        <a href={`/integrations${ws}`}>Channels</a> /{' '}
        <a href={`/integrations/channels/${channel.channel_key}${ws}`}>{channel.name}</a> /{' '}
        <a href={`/integrations/channels/${channel.channel_key}/intake${ws}`}>Recent intake</a> /{' '}
        {conversation.reference}
      </p>
      <div class="title-row">
        <h1>{title}</h1>
        {conversation.lead ? <StatusPill status={conversation.lead.status} /> : null}
      </div>
      <p class="muted">
        Started {when(conversation.started_at)}.{' '}
        {conversation.lead?.claimed_by_name
          ? `${conversation.lead.claimed_by_name} has the lead.`
          : conversation.lead
            ? 'Its lead waits for an expert.'
            : 'No lead: nobody asked for a person yet.'}{' '}
        Read only: contact details reach the expert who claims the lead, and nobody else.
      </p>
      <section class="card" aria-labelledby="thread-title">
        <h2 id="thread-title">Messages</h2>
        {conversation.messages.length === 0 ? (
          <p class="muted">No messages (a contact form without a message).</p>
        ) : (
          <ol class="transcript">
            {conversation.messages.map((message) => (
              <li class={`turn ${message.role}`}>
                <span class="speaker">{speakerOf(message)}</span>
                <span class="when">{when(message.created_at)}</span>
                <p dir="auto">{message.text}</p>
              </li>
            ))}
          </ol>
        )}
      </section>
      {roleMay(current.role, 'privacy.manage') ? (
        <section class="card narrow" aria-labelledby="erase-title">
          <h2 id="erase-title">Erase this visitor’s data</h2>
          <p>
            Every message of this conversation, the visitor’s contact details and their words in the archives become
            “[erased]”. Counts and money records stay. It cannot be undone.
          </p>
          <form
            method="post"
            action={`/integrations/channels/${channel.channel_key}/conversations/${props.conversationId}/erase${ws}`}
            class="stack"
          >
            <label class="check">
              <input type="checkbox" name="confirm" value="yes" required /> I understand it cannot be undone
            </label>
            <p>
              <button type="submit" class="button danger">
                Erase this visitor’s data
              </button>
            </p>
          </form>
        </section>
      ) : null}
    </WorkspaceLayout>
  );
}
