/**
 * Channels: the demand-side entry points of a workspace (widget and hosted inbox).
 * Every lookup is scoped to a workspace, so another tenant's channel is simply not found.
 */
import { directoryEntry } from '../shards';
import { and, desc, eq } from 'drizzle-orm';
import { consoleOrigin, type PlatformUrls } from '../../env';
import { isLanguage, LANGUAGES, type LanguageSetting } from '../../lib/i18n';
import { schema, type Database } from '../../lib/db';
import { ApiError, fieldErrorsFromZod } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ROUTING_DEFAULTS, type RoutingSettings } from '../../brain';
import { assertKnownDomain } from '../domains';
import { DEFAULT_MIN_CONFIDENCE } from '../knowledge';
import { auditInsert, type AuditContext } from '../audit';
import { hostedInboxUrl, isFirstPartyOrigin, publicWidgetConfig } from './public-config';
import {
  defaultWidgetConfig,
  widgetConfigSchema,
  type ChannelView,
  type WidgetConfig,
  type WidgetConfigPatch,
} from './schemas';
import { clock } from '../../lib/clock';
import { forgetChannel } from './active';
import { iso } from '../../lib/periods';

const { channels } = schema;

export type ChannelRow = typeof channels.$inferSelect;

export interface WorkspaceScope {
  workspaceId: string;
  organizationId: string;
}

/** The channel's widget configuration, as validated when it was written. */
export function widgetConfigOf(row: ChannelRow): WidgetConfig {
  return widgetConfigSchema.parse(row.widgetConfig);
}

/** Whether the channel's widget asks visitors for any contact detail. */
export function asksForContact(row: ChannelRow): boolean {
  const rules = widgetConfigOf(row).lead_capture;
  return rules.name !== 'off' || rules.email !== 'off' || rules.phone !== 'off';
}

/** The ready-to-paste snippet (SPEC "Widget snippet attributes"). */
export function snippetFor(urls: PlatformUrls, channelKey: string): string {
  return (
    `<script async src="${urls.consoleUrl}/embed/widget.js" data-channel-id="${channelKey}" ` +
    `data-console-origin="${urls.consoleUrl}"></script>`
  );
}

/** A channel's lead operations: what it set, over the defaults (docs/design/lead-operations.md). */
/** A channel's knowledge setting, its defaults filled in (off, 0.5). */
export function knowledgeOf(row: Pick<ChannelRow, 'knowledge'>): { enabled: boolean; min_confidence: number } {
  return { enabled: false, min_confidence: DEFAULT_MIN_CONFIDENCE, ...(row.knowledge ?? {}) };
}

/** A channel's routing settings, its defaults filled in. */
export function routingOf(row: Pick<ChannelRow, 'routing'> | null | undefined): RoutingSettings {
  return { ...ROUTING_DEFAULTS, ...(row?.routing ?? {}) };
}

/** The public shape of a channel, with its snippet and hosted inbox link. */
export function describeChannel(row: ChannelRow, urls: PlatformUrls): ChannelView {
  return {
    channel_key: row.channelKey,
    workspace_id: row.workspaceId,
    name: row.name,
    domain: row.domain,
    status: row.status,
    allowed_origins: row.allowedOrigins,
    first_party_origins: row.firstPartyOrigins,
    routing_pool: row.routingPool,
    language: isLanguage(row.language) ? row.language : 'auto',
    routing: routingOf(row),
    knowledge: knowledgeOf(row),
    widget: widgetConfigOf(row),
    snippet: snippetFor(urls, row.channelKey),
    hosted_inbox_url: hostedInboxUrl(urls, row.channelKey),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The owner's copy per language, merged language by language and field by field. */
function mergeByLanguage(
  base: WidgetConfig['copy_by_language'],
  patch: WidgetConfigPatch['copy_by_language'],
): WidgetConfig['copy_by_language'] {
  const merged = { ...base };
  for (const language of LANGUAGES) {
    const change = patch?.[language];
    if (!change) continue;
    const fields: Record<string, string> = { ...base[language] };
    for (const [field, value] of Object.entries(change)) {
      if (value === null) delete fields[field];
      else if (value !== undefined) fields[field] = value;
    }
    if (Object.keys(fields).length > 0) merged[language] = fields;
    else delete merged[language];
  }
  return merged;
}

/**
 * The language a patch's `copy` is written in when it does not say: a channel that speaks one
 * language (not `auto`) is written for in it, so an owner's greeting reaches its visitors. A patch
 * without `copy` changes nothing of it: existing channels keep what their owners see.
 */
export function withCopyLanguage(patch: WidgetConfigPatch | undefined, language: LanguageSetting | string) {
  if (!patch?.copy || patch.copy_language !== undefined || !isLanguage(language)) return patch;
  return { ...patch, copy_language: language };
}

/** Applies a partial widget configuration and validates the whole result. */
export function mergeWidgetConfig(base: WidgetConfig, patch: WidgetConfigPatch | undefined): WidgetConfig {
  if (!patch) return base;
  const merged: WidgetConfig = {
    brand: { ...base.brand, ...patch.brand },
    colors: { ...base.colors, ...patch.colors },
    position: { ...base.position, ...patch.position },
    copy: { ...base.copy, ...patch.copy },
    copy_language: patch.copy_language ?? base.copy_language,
    copy_by_language: mergeByLanguage(base.copy_by_language, patch.copy_by_language),
    lead_capture: { ...base.lead_capture, ...patch.lead_capture },
    provider_entry: { ...base.provider_entry, ...patch.provider_entry },
  };
  const checked = widgetConfigSchema.safeParse(merged);
  if (!checked.success)
    throw new ApiError('validation_failed', 'The widget configuration is not valid.', {
      errors: fieldErrorsFromZod(checked.error),
    });
  return checked.data;
}

/**
 * The budget of the one request a host page makes before a visitor opens the widget: 1.5 KB in its
 * longest language (Arabic and Hebrew letters take two bytes each; the English default is about 800).
 */
export const PUBLIC_CONFIG_BUDGET_BYTES = 1536;

/** Refuses a configuration whose public form would pass the budget in any language, so every widget starts fast. */
function assertConfigBudget(row: ChannelRow, urls: PlatformUrls): void {
  // The longest of its languages (Arabic and Hebrew take two bytes a letter).
  const size = Math.max(
    ...LANGUAGES.map(
      (language) =>
        new TextEncoder().encode(JSON.stringify(publicWidgetConfig(row, urls, consoleOrigin(urls), language)))
          .byteLength,
    ),
  );
  if (size > PUBLIC_CONFIG_BUDGET_BYTES) {
    const detail =
      `The widget configuration would be ${size} bytes; it must stay within ` +
      `${PUBLIC_CONFIG_BUDGET_BYTES} so the widget loads fast. Shorten the copy or the logo URL.`;
    throw new ApiError('validation_failed', detail, { errors: [{ pointer: '/widget', detail }] });
  }
}

export interface CreateChannelInput {
  name: string;
  domain: string;
  allowed_origins: string[];
  first_party_origins: string[];
  routing_pool?: 'platform' | 'workspace';
  routing?: Partial<RoutingSettings>;
  language?: LanguageSetting;
  knowledge?: Partial<{ enabled: boolean; min_confidence: number }>;
  widget?: WidgetConfigPatch;
}

/** Creates a channel with the default widget (in the brand's name) merged with what was given. */
export async function createChannel(
  db: Database,
  scope: WorkspaceScope,
  audit: AuditContext,
  input: CreateChannelInput,
  urls: PlatformUrls,
  now = clock.now(),
): Promise<ChannelRow> {
  await assertKnownDomain(db, input.domain);
  const organization = await db
    .select({ name: schema.organizations.name })
    .from(schema.organizations)
    .where(eq(schema.organizations.id, scope.organizationId))
    .get();
  // Default copy speaks in the brand's name: the one given, else the organisation's.
  const brandName = input.widget?.brand?.name ?? organization?.name ?? input.name;
  const language = input.language ?? 'auto';
  // A new channel of one language is written for in it, unless its copy says otherwise.
  const widgetConfig = mergeWidgetConfig(defaultWidgetConfig(brandName), {
    ...input.widget,
    ...(isLanguage(language) && input.widget?.copy_language === undefined ? { copy_language: language } : {}),
  });
  const channelKey = newId('ch', now);
  const values = {
    channelKey,
    workspaceId: scope.workspaceId,
    name: input.name,
    domain: input.domain,
    allowedOrigins: [...new Set(input.allowed_origins)],
    firstPartyOrigins: [...new Set(input.first_party_origins)],
    routingPool: input.routing_pool ?? ('platform' as const),
    routing: { ...ROUTING_DEFAULTS, ...input.routing },
    language,
    knowledge: input.knowledge ? { enabled: false, min_confidence: DEFAULT_MIN_CONFIDENCE, ...input.knowledge } : null,
    status: 'active' as const,
    widgetConfig,
    createdAt: now,
    updatedAt: now,
  };
  assertConfigBudget({ id: 0, ...values }, urls);
  // The directory's entry first: the widget's door finds the organisation by the channel's key.
  await directoryEntry(db, 'channel', channelKey, scope.organizationId);
  const [inserted] = await db.batch([
    db.insert(channels).values(values).returning(),
    auditInsert(
      db,
      audit,
      {
        organizationId: scope.organizationId,
        workspaceId: scope.workspaceId,
        action: 'channel.created',
        targetId: channelKey,
      },
      now,
    ),
  ]);
  const row = inserted[0];
  if (!row) throw new Error('channel insert returned no row');
  return row;
}

/** The workspace's channels, newest first. */
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
  routing_pool?: 'platform' | 'workspace';
  routing?: Partial<RoutingSettings>;
  language?: LanguageSetting;
  knowledge?: Partial<{ enabled: boolean; min_confidence: number }>;
  widget?: WidgetConfigPatch;
}

/** Changes a channel; `widget` merges section by section. */
export async function updateChannel(
  db: Database,
  scope: WorkspaceScope,
  audit: AuditContext,
  channelKey: string,
  input: UpdateChannelInput,
  urls: PlatformUrls,
  now = clock.now(),
): Promise<ChannelRow> {
  const existing = await getChannel(db, scope.workspaceId, channelKey);
  if (input.domain !== undefined) await assertKnownDomain(db, input.domain);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.domain !== undefined ? { domain: input.domain } : {}),
    ...(input.allowed_origins !== undefined ? { allowedOrigins: [...new Set(input.allowed_origins)] } : {}),
    ...(input.first_party_origins !== undefined ? { firstPartyOrigins: [...new Set(input.first_party_origins)] } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.routing_pool !== undefined ? { routingPool: input.routing_pool } : {}),
    ...(input.routing !== undefined ? { routing: { ...routingOf(existing), ...input.routing } } : {}),
    ...(input.language !== undefined ? { language: input.language } : {}),
    ...(input.knowledge !== undefined ? { knowledge: { ...knowledgeOf(existing), ...input.knowledge } } : {}),
    ...(input.widget !== undefined
      ? {
          widgetConfig: mergeWidgetConfig(
            widgetConfigOf(existing),
            withCopyLanguage(input.widget, input.language ?? existing.language),
          ),
        }
      : {}),
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
        action:
          input.status && input.status !== existing.status
            ? `channel.${input.status === 'active' ? 'enabled' : 'disabled'}`
            : 'channel.updated',
        targetId: channelKey,
        metadata: { fields: Object.keys(input) },
      },
      now,
    ),
  ]);
  const row = updated[0];
  if (!row) throw new ApiError('not_found', `No channel ${channelKey} in this workspace.`);
  forgetChannel(channelKey);
  return row;
}

/** The origins whose pages may load this channel's widget and send intake (exact match). */
export function isOriginAllowed(row: ChannelRow, urls: PlatformUrls, origin: string): boolean {
  return isFirstPartyOrigin(row, urls, origin) || row.allowedOrigins.includes(origin);
}
