/** @jsxImportSource hono/jsx */
/**
 * "Erase this visitor's data" on an owner's conversation page (docs/design/data-lifecycle.md#erasure):
 * the same request as POST /api/privacy/erasures, asked by the owner signed in.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import { getChannel } from '../../platform/channels';
import { requestErasure } from '../../platform/lifecycle';
import { readForm } from '../shared/form-input';
import { userAuditContext, workspaceContext } from '../shared/workspace';

/** Registers the erase form's route on the integrations app. */
export function registerConversationErasure(app: Hono<AppEnv>) {
  app.post('/integrations/channels/:channelKey/conversations/:conversationId/erase', async (c) => {
    const context = await workspaceContext(c, 'privacy.manage');
    const channelKey = c.req.param('channelKey');
    const conversationId = c.req.param('conversationId');
    await getChannel(c.var.db, context.current.workspaceId, channelKey);
    if ((await readForm(c)).confirm !== 'yes') throw new ApiError('validation_failed', 'Tick the box to confirm.');
    await requestErasure(
      c.var.db,
      c.var.services.queues.events,
      {
        ...userAuditContext(c),
        workspaceId: context.current.workspaceId,
        organizationId: context.current.organizationId,
      },
      { conversationId },
      clock.now(),
    );
    const ws = `ws=${encodeURIComponent(context.current.workspaceId)}`;
    return c.redirect(`/integrations/channels/${channelKey}/conversations/${conversationId}?${ws}&notice=erased`, 303);
  });
}
