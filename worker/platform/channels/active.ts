/**
 * A channel as the public doors find it (the widget, the hosted inbox, replies by email): active,
 * of an active tenant, by its public key, through the directory to its organisation's shard.
 */
import { and, eq } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { AdmissionCache, type AdmissionRead } from '../../lib/admission-cache';
import { joinTenant, tenantIsActive } from '../identity';
import { enterBy, enterOrganization } from '../shards';
import { clock } from '../../lib/clock';

const { channels, workspaces } = schema;

type ChannelRow = typeof channels.$inferSelect;

declare module 'hono' {
  interface ContextVariableMap {
    /** Set on the public widget routes once the channel and origin are admitted. */
    channel: ActiveChannel;
    /** The page origin a public widget request comes from (undefined: not a browser page). */
    pageOrigin: string | undefined;
    /**
     * The origin intake's execution batch re-checks against the channel's lists (null: the console's own pages, always
     * allowed).
     */
    channelOriginToGuard: string | null;
  }
}

export type ActiveChannel = ChannelRow & { organizationId: string };

/**
 * An active channel of an active workspace and organisation, by its public key, for the public
 * widget routes. Disabled, suspended and unknown are all the same to a visitor: not found.
 */
export async function findActiveChannel(db: Database, channelKey: string): Promise<ActiveChannel | undefined> {
  // The directory says whose channel it is (cached for good); its rows are on that organisation's shard.
  if (!(await enterBy(db, 'channel', channelKey))) return undefined;
  const query = db.select({ channel: channels, organizationId: workspaces.organizationId }).from(channels).$dynamic();
  const row = await joinTenant(query, channels.workspaceId)
    .where(and(eq(channels.channelKey, channelKey), eq(channels.status, 'active'), tenantIsActive))
    .get();
  return row ? { ...row.channel, organizationId: row.organizationId } : undefined;
}

const activeChannels = new AdmissionCache<ActiveChannel>(10_000, 1000);

/**
 * An active channel for intake, from this isolate's cache when it is there (up to 10 s old).
 * Intake's execution batch guards the channel's current state and origin list (core/batch-admission.ts),
 * and any other refusal re-verifies it (reverifyCachedChannel), so a disabled channel or a removed
 * origin never gets through; the cache only spares the lookup's round trip.
 */
export function findActiveChannelForIntake(
  db: Database,
  channelKey: string,
  now = clock.now(),
): Promise<AdmissionRead<ActiveChannel>> {
  return activeChannels
    .read(channelKey, () => findActiveChannel(db, channelKey), { now })
    .then(async (read) => {
      // A cached channel still needs its organisation's shard entered (cached too: no round trip).
      if (read.value) await enterOrganization(db, read.value.organizationId);
      return read;
    });
}

/**
 * The refusal a request that ran on a cached channel gets instead of `error`, when the channel's
 * current state calls for one (`admit` throws it: not found, or the origin off its lists).
 */
export function reverifyCachedChannel(
  db: Database,
  read: AdmissionRead<ActiveChannel>,
  channelKey: string,
  error: unknown,
  admit: (channel: ActiveChannel | undefined) => unknown,
): Promise<ApiError | undefined> {
  return activeChannels.reverify(read, channelKey, error, async () => {
    try {
      admit(await findActiveChannel(db, channelKey));
      return undefined;
    } catch (refusal) {
      if (refusal instanceof ApiError) return refusal;
      throw refusal;
    }
  });
}

/** Forgets a cached channel (after a change through this isolate, or a failed guard). */
export function forgetChannel(channelKey?: string): void {
  activeChannels.forget(channelKey);
}
