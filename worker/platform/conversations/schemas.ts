/** The wire shapes of a conversation (docs/design/live.md): a message, and the visitor's thread. */
import { z } from '@hono/zod-openapi';
import { LEAD_STATUSES, MESSAGE_ROLES } from '../../vocabulary';

export const messageSchema = z
  .object({
    message_id: z.string().openapi({ example: 'msg_01m83…' }),
    role: z.enum(MESSAGE_ROLES),
    author_name: z.string().nullable().openapi({ description: 'The expert or agent who wrote it; null otherwise.' }),
    text: z.string().openapi({ description: 'Plain text. Render it as text, never as HTML.' }),
    sources: z
      .array(z.object({ title: z.string(), url: z.string().nullable() }))
      .optional()
      .openapi({ description: "A knowledge answer's sources (the workspace's own help): show them as links." }),
    created_at: z.string(),
  })
  .openapi('Message');
export type MessageView = z.infer<typeof messageSchema>;

export const visitorThreadSchema = z
  .object({
    reference: z.string().nullable().openapi({ example: 'D-8S5BSX' }),
    lead: z
      .object({ status: z.enum(LEAD_STATUSES), claimed_by_name: z.string().nullable() })
      .nullable()
      .openapi({ description: 'The conversation’s lead, if it has one: its status and who has it.' }),
    messages: z.array(messageSchema),
    has_more: z.boolean(),
  })
  .openapi('VisitorThread');
export type VisitorThread = z.infer<typeof visitorThreadSchema>;
