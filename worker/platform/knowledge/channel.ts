/** A channel's knowledge setting, as the knowledge reads it (the channel module writes it). */
import { and, eq } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { DEFAULT_MIN_CONFIDENCE } from './answer';

const { channels } = schema;

/** A channel of the workspace's knowledge setting (404 for another workspace's channel, as for none). */
export async function channelKnowledgeOf(
  db: Database,
  workspaceId: string,
  channelKey: string,
): Promise<{ enabled: boolean; min_confidence: number }> {
  const row = await db
    .select({ knowledge: channels.knowledge })
    .from(channels)
    .where(and(eq(channels.channelKey, channelKey), eq(channels.workspaceId, workspaceId)))
    .get();
  if (!row) throw new ApiError('not_found', `No channel ${channelKey} in this workspace.`);
  return { enabled: false, min_confidence: DEFAULT_MIN_CONFIDENCE, ...(row.knowledge ?? {}) };
}
