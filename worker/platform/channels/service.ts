/**
 * Channels: the demand-side entry points of a workspace (widget and hosted inbox).
 * Every lookup is scoped to a workspace, so another tenant's channel is simply not found.
 */
import { and, desc, eq } from 'drizzle-orm';
import { knownDomains } from '../../brain/executors';
import type { PlatformUrls } from '../../env';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, type AuditContext } from '../identity';
import {
  defaultWidgetConfig,
  widgetConfigSchema,
  type ChannelView,
  type PublicWidgetConfig,
  type WidgetConfig,
  type WidgetConfigPatch,
} from './schemas';

const { channels, workspaces } = schema;

export type ChannelRow = typeof channels.$inferSelect;

export interface WorkspaceScope {
  workspaceId: string;
  organizationId: string;
}

const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

export function widgetConfigOf(row: ChannelRow): WidgetConfig {
  return widgetConfigSchema.parse(row.widgetConfig);
}

export function hostedInboxUrl(urls: PlatformUrls, channelKey: string): string {
  return `${urls.consoleUrl}/widget/${encodeURIComponent(channelKey)}`;
}

/** The ready-to-paste snippet (SPEC "Widget snippet attributes"). */
export function snippetFor(urls: PlatformUrls, channelKey: string): string {
  return `<script async src="${urls.consoleUrl}/embed/widget.js" data-channel-id="${channelKey}" data-console-origin="${urls.consoleUrl}"></script>`;
}

export function describeChannel(row: ChannelRow, urls: PlatformUrls): ChannelView {
  return {
    channel_key: row.channelKey,
    workspace_id: row.workspaceId,
    name: row.name,
    domain: row.domain,
    status: row.status,
    allowed_origins: row.allowedOrigins,
    first_party_origins: row.firstPartyOrigins,
    widget: widgetConfigOf(row),
    snippet: snippetFor(urls, row.channelKey),
    hosted_inbox_url: hostedInboxUrl(urls, row.channelKey),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

function assertKnownDomain(domain: string): void {
  if (!knownDomains().includes(domain)) {
    throw new ApiError('unknown_domain', `No executor serves domain "${domain}". Known: ${knownDomains().join(', ')}.`, {
      errors: [{ pointer: '/domain', detail: 'Unknown domain.' }],
    });
  }
}

/** Applies a partial widget configuration and validates the whole result. */
export function mergeWidgetConfig(base: WidgetConfig, patch: WidgetConfigPatch | undefined): WidgetConfig {
  if (!patch) return base;
  const merged = {
    brand: { ...base.brand, ...patch.brand },
    colors: { ...base.colors, ...patch.colors },
    position: { ...base.position, ...patch.position },
    copy: { ...base.copy, ...patch.copy },
    lead_capture: { ...base.lead_capture, ...patch.lead_capture },
    provider_entry: { ...base.provider_entry, ...patch.provider_entry },
  };
  return widgetConfigSchema.parse(merged);
}

/** The budget of the one request a host page makes before a visitor opens the widget. */
export const PUBLIC_CONFIG_BUDGET_BYTES = 1024;

/** Refuses a configuration whose public form would pass 1 KB, so every widget starts fast. */
function assertConfigBudget(row: ChannelRow, urls: PlatformUrls): void {
  const size = new TextEncoder().encode(JSON.stringify(publicWidgetConfig(row, urls, consoleOrigin(urls)))).byteLength;
  if (size > PUBLIC_CONFIG_BUDGET_BYTES) {
    const detail = `The widget configuration would be ${size} bytes; it must stay within ${PUBLIC_CONFIG_BUDGET_BYTES} so the widget loads fast. Shorten the copy or the logo URL.`;
    throw new ApiError('validation_failed', detail, { errors: [{ pointer: '/widget', detail }] });
  }
}

export interface CreateChannelInput {
  name: string;
  domain: string;
  allowed_origins: string[];
  first_party_origins: string[];
  widget?: WidgetConfigPatch;
}

export async function createChannel(
  db: Database,
  scope: WorkspaceScope,
  audit: AuditContext,
  input: CreateChannelInput,
  urls: PlatformUrls,
  now = Date.now(),
): Promise<ChannelRow> {
  assertKnownDomain(input.domain);
  const organization = await db
    .select({ name: schema.organizations.name })
    .from(schema.organizations)
    .where(eq(schema.organizations.id, scope.organizationId))
    .get();
  // Default copy speaks in the brand's name: the one given, else the organisation's.
  const brandName = input.widget?.brand?.name ?? organization?.name ?? input.name;
  const widgetConfig = mergeWidgetConfig(defaultWidgetConfig(brandName), input.widget);
  const channelKey = newId('ch', now);
  const values = {
    channelKey,
    workspaceId: scope.workspaceId,
    name: input.name,
    domain: input.domain,
    allowedOrigins: [...new Set(input.allowed_origins)],
    firstPartyOrigins: [...new Set(input.first_party_origins)],
    status: 'active' as const,
    widgetConfig,
    createdAt: now,
    updatedAt: now,
  };
  assertConfigBudget({ id: 0, ...values }, urls);
  const [inserted] = await db.batch([
    db.insert(channels).values(values).returning(),
    auditInsert(db, audit, { organizationId: scope.organizationId, workspaceId: scope.workspaceId, action: 'channel.created', targetId: channelKey }, now),
  ]);
  const row = inserted[0];
  if (!row) throw new Error('channel insert returned no row');
  return row;
}

export async function listChannels(db: Database, workspaceId: string): Promise<ChannelRow[]> {
  return db.select().from(channels).where(eq(channels.workspaceId, workspaceId)).orderBy(desc(channels.id)).limit(200);
}

/** A channel of this workspace, or 404: another tenant's channel does not exist for the caller. */
export async function getChannel(db: Database, workspaceId: string, channelKey: string): Promise<ChannelRow> {
  const row = await db
    .select()
    .from(channels)
    .where(and(eq(channels.workspaceId, workspaceId), eq(channels.channelKey, channelKey)))
    .get();
  if (!row) throw new ApiError('not_found', `No channel ${channelKey} in this workspace.`);
  return row;
}

export interface UpdateChannelInput {
  name?: string;
  domain?: string;
  allowed_origins?: string[];
  first_party_origins?: string[];
  status?: 'active' | 'disabled';
  widget?: WidgetConfigPatch;
}

export async function updateChannel(
  db: Database,
  scope: WorkspaceScope,
  audit: AuditContext,
  channelKey: string,
  input: UpdateChannelInput,
  urls: PlatformUrls,
  now = Date.now(),
): Promise<ChannelRow> {
  const existing = await getChannel(db, scope.workspaceId, channelKey);
  if (input.domain !== undefined) assertKnownDomain(input.domain);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.domain !== undefined ? { domain: input.domain } : {}),
    ...(input.allowed_origins !== undefined ? { allowedOrigins: [...new Set(input.allowed_origins)] } : {}),
    ...(input.first_party_origins !== undefined ? { firstPartyOrigins: [...new Set(input.first_party_origins)] } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.widget !== undefined ? { widgetConfig: mergeWidgetConfig(widgetConfigOf(existing), input.widget) } : {}),
    updatedAt: now,
  };
  assertConfigBudget({ ...existing, ...changes }, urls);
  const [updated] = await db.batch([
    db.update(channels).set(changes).where(eq(channels.id, existing.id)).returning(),
    auditInsert(
      db,
      audit,
      {
        organizationId: scope.organizationId,
        workspaceId: scope.workspaceId,
        action: input.status && input.status !== existing.status ? `channel.${input.status === 'active' ? 'enabled' : 'disabled'}` : 'channel.updated',
        targetId: channelKey,
        metadata: { fields: Object.keys(input) },
      },
      now,
    ),
  ]);
  const row = updated[0];
  if (!row) throw new ApiError('not_found', `No channel ${channelKey} in this workspace.`);
  return row;
}

export type ActiveChannel = ChannelRow & { organizationId: string };

/**
 * An active channel of an active workspace and organisation, by its public key, for the public
 * widget routes. Disabled, suspended and unknown are all the same to a visitor: not found.
 */
export async function findActiveChannel(db: Database, channelKey: string): Promise<ActiveChannel | undefined> {
  const { organizations } = schema;
  const row = await db
    .select({ channel: channels, organizationId: workspaces.organizationId })
    .from(channels)
    .innerJoin(workspaces, eq(workspaces.id, channels.workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .where(
      and(
        eq(channels.channelKey, channelKey),
        eq(channels.status, 'active'),
        eq(workspaces.status, 'active'),
        eq(organizations.status, 'active'),
      ),
    )
    .get();
  return row ? { ...row.channel, organizationId: row.organizationId } : undefined;
}

export function consoleOrigin(urls: PlatformUrls): string {
  return new URL(urls.consoleUrl).origin;
}

/** First-party: the console itself, or one of the channel's own first-party sites. */
export function isFirstPartyOrigin(row: ChannelRow, urls: PlatformUrls, origin: string | undefined): boolean {
  return origin !== undefined && (origin === consoleOrigin(urls) || row.firstPartyOrigins.includes(origin));
}

/** The origins whose pages may load this channel's widget and send intake (exact match). */
export function isOriginAllowed(row: ChannelRow, urls: PlatformUrls, origin: string): boolean {
  return isFirstPartyOrigin(row, urls, origin) || row.allowedOrigins.includes(origin);
}

/** The public widget configuration, with provider_entry resolved for the requesting origin. */
export function publicWidgetConfig(row: ChannelRow, urls: PlatformUrls, origin: string | undefined): PublicWidgetConfig {
  const config = widgetConfigOf(row);
  const mode = config.provider_entry.mode;
  const enabled = mode === 'on' || (mode === 'auto' && isFirstPartyOrigin(row, urls, origin));
  const key = encodeURIComponent(row.channelKey);
  return {
    channel_key: row.channelKey,
    brand: config.brand,
    colors: config.colors,
    position: config.position,
    copy: config.copy,
    lead_capture: config.lead_capture,
    provider_entry: {
      enabled,
      label: config.provider_entry.label,
      url: `${urls.authUrl}/sign-up?role=provider&ref=${key}`,
    },
    hosted_inbox_url: hostedInboxUrl(urls, row.channelKey),
    intake_url: `${urls.consoleUrl}/api/public/widget/${key}/intake`,
  };
}

export interface IntakeEntry {
  demand_id: string;
  trigger: string | null;
  text: string | null;
  attribution: typeof schema.demands.$inferSelect['attribution'];
  created_at: string;
  lead: { lead_id: string; status: string; contact_fields: string[] } | null;
}

/**
 * Recent demand captured by a channel, newest first, with the lead each produced. Contact
 * details stay out: only the expert who claims a lead sees them; here we say which were given.
 */
export async function listChannelIntake(db: Database, row: ChannelRow, limit: number): Promise<IntakeEntry[]> {
  const { demands, leads } = schema;
  const rows = await db
    .select({ demand: demands, lead: leads })
    .from(demands)
    .leftJoin(leads, eq(leads.demandId, demands.id))
    .where(eq(demands.channelId, row.id))
    .orderBy(desc(demands.id))
    .limit(limit);
  return rows.map(({ demand, lead }) => ({
    demand_id: demand.id,
    trigger: demand.trigger,
    text: demand.text,
    attribution: demand.attribution,
    created_at: iso(demand.createdAt),
    lead: lead
      ? {
          lead_id: lead.id,
          status: lead.status,
          contact_fields: [lead.contactName && 'name', lead.contactEmail && 'email', lead.contactPhone && 'phone'].filter(
            (field): field is string => Boolean(field),
          ),
        }
      : null,
  }));
}
