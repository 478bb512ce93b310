/**
 * Channel, widget configuration and intake schemas: they validate requests, generate the
 * OpenAPI description, and give the TypeScript types.
 */
import { z } from '@hono/zod-openapi';
import { settingBounds } from '../../brain/lead-policy';
import { displayText, setOf } from '../../lib/openapi';
import { attributionSchema } from '../attribution';
import { messageSchema } from '../conversations/schemas';
import { channelKnowledgeSchema } from '../knowledge/schemas';
import { LANGUAGE_SETTINGS, LANGUAGES, MESSAGE_MAX_CHARS, ROUTING_POOLS, TRIGGERS } from '../../vocabulary';
import widgetDefaults from './widget-defaults.json';

/** An exact web origin: scheme, host and optional port, nothing else. */
export const originSchema = z
  .string()
  .max(200)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
    } catch {
      return false;
    }
  }, 'Must be an exact origin such as https://www.example.com (scheme, host, optional port; no path or trailing ' +
    'slash).')
  .openapi({ example: 'https://www.example.com' });

export const hexColorSchema = z
  .string()
  .max(7)
  .regex(/^#[0-9a-fA-F]{6}$/, 'Use a #RRGGBB colour.')
  .transform((value) => value.toLowerCase());

const fieldRule = z.enum(['off', 'optional', 'required']);

const copySchema = z.strictObject({
  title: displayText({ min: 1, max: 60 }),
  greeting: displayText({ min: 1, max: 280, multiline: true }),
  placeholder: displayText({ min: 1, max: 80 }),
  launcher_label: displayText({ min: 1, max: 40 }),
  success_message: displayText({ min: 1, max: 200, multiline: true }),
  privacy_note: displayText({ min: 1, max: 280, multiline: true }),
});

/** A channel's language: one with a catalog, or `auto` (the visitor's browser languages, else English). */
export const languageSettingSchema = z.enum(LANGUAGE_SETTINGS).openapi('LanguageSetting', {
  description:
    'The language the widget, the hosted inbox, the replies and the emails speak to visitors: `auto` (the ' +
    'default) follows the visitor’s browser (`Accept-Language`), else English.',
});

export const widgetConfigSchema = z
  .strictObject({
    brand: z.strictObject({
      name: displayText({ min: 1, max: 60 }),
      logo_url: z
        .url({ protocol: /^https$/ })
        .max(500)
        .nullable()
        .default(null),
    }),
    colors: z.strictObject({ primary: hexColorSchema, on_primary: hexColorSchema }),
    position: z.strictObject({
      side: z.enum(['bottom-right', 'bottom-left']),
      offset_x: z.number().int().min(0).max(200),
      offset_y: z.number().int().min(0).max(200),
    }),
    copy: copySchema,
    copy_language: z
      .enum(LANGUAGES)
      .default('en')
      .openapi({
        description:
          'The language `copy` is written in (English by default): visitors in it read `copy`; visitors in ' +
          'another read `copy_by_language` for theirs, else the catalog’s default in their language.',
      }),
    // The owner's words per language: a field given here wins in that language over `copy` and the catalog.
    copy_by_language: z
      .partialRecord(z.enum(LANGUAGES), copySchema.partial())
      .default({})
      .openapi({
        description:
          'The copy per language (`de`, `ar`, …), field by field. In a visitor’s language, a field given here is ' +
          'shown; else, in `copy_language`, `copy`’s field if the owner changed it from the default; else the ' +
          'catalog’s default in that language.',
        example: { de: { greeting: 'Hallo! Wobei können wir helfen?' } },
      }),
    lead_capture: z.strictObject({ name: fieldRule, email: fieldRule, phone: fieldRule }),
    provider_entry: z.strictObject({
      mode: z.enum(['auto', 'on', 'off']),
      label: displayText({ min: 1, max: 40 }),
    }),
  })
  .openapi('WidgetConfig');
export type WidgetConfig = z.infer<typeof widgetConfigSchema>;

/** The widget a new channel starts with, speaking in the brand's name (the seed starts from it too). */
export function defaultWidgetConfig(brandName: string): WidgetConfig {
  const brand = brandName.slice(0, 60);
  return widgetConfigSchema.parse({
    ...widgetDefaults,
    brand: { name: brand, logo_url: null },
    copy: { ...widgetDefaults.copy, title: widgetDefaults.copy.title.replace('{brand}', brand).slice(0, 60) },
  });
}

/** A partial widget configuration for PATCH: any section, any field. */
export const widgetConfigPatchSchema = z.strictObject({
  brand: widgetConfigSchema.shape.brand.partial().optional(),
  colors: widgetConfigSchema.shape.colors.partial().optional(),
  position: widgetConfigSchema.shape.position.partial().optional(),
  copy: widgetConfigSchema.shape.copy.partial().optional(),
  copy_language: z.enum(LANGUAGES).optional(),
  // Per language, field by field; null takes a field back out (the language falls back again).
  copy_by_language: z
    .partialRecord(
      z.enum(LANGUAGES),
      z.strictObject(
        Object.fromEntries(
          Object.entries(copySchema.shape).map(([field, schema]) => [field, schema.nullable().optional()]),
        ) as {
          [Field in keyof typeof copySchema.shape]: z.ZodOptional<z.ZodNullable<(typeof copySchema.shape)[Field]>>;
        },
      ),
    )
    .optional(),
  lead_capture: widgetConfigSchema.shape.lead_capture.partial().optional(),
  provider_entry: widgetConfigSchema.shape.provider_entry.partial().optional(),
});
export type WidgetConfigPatch = z.infer<typeof widgetConfigPatchSchema>;

const domainSchema = z.string().trim().min(1).max(100).openapi({ example: 'consultation' });

export const routingPoolSchema = z.enum(ROUTING_POOLS).openapi('RoutingPool', {
  description:
    'Who may see this channel’s leads: `platform` (every matching active provider, the default) or `workspace` (only ' +
    'providers who are members of this workspace).',
});

const { minutes: minuteBounds, offerFirst } = settingBounds;
const minutes = (description: string) =>
  z
    .number()
    .int()
    .min(minuteBounds.min)
    .max(minuteBounds.max)
    .openapi({ description: `${description} Minutes, 1 to 10,080 (7 days).` });

/** A channel's lead operations (docs/design/lead-operations.md). */
export const routingSettingsSchema = z
  .strictObject({
    offer_first: z.number().int().min(offerFirst.min).max(offerFirst.max).openapi({
      description: 'How many experts a new lead is offered to first: the best matches (default 3).',
    }),
    offer_widen_minutes: minutes('Unclaimed this long, the lead is offered to every matching expert (default 10).'),
    escalate_minutes: minutes('Unclaimed this long, the workspace’s owners are emailed (default 60).'),
    claim_sla_minutes: minutes('A claim with no reply for this long is released and offered again (default 60).'),
  })
  .openapi('RoutingSettings');

export const createChannelSchema = z
  .strictObject({
    name: displayText({ min: 1, max: 80 }),
    domain: domainSchema,
    allowed_origins: setOf(originSchema, 50).default([]),
    first_party_origins: setOf(originSchema, 20).default([]),
    routing_pool: routingPoolSchema.default('platform'),
    routing: routingSettingsSchema.partial().optional(),
    language: languageSettingSchema.default('auto'),
    knowledge: channelKnowledgeSchema.partial().optional(),
    widget: widgetConfigPatchSchema.optional(),
  })
  .openapi('CreateChannel');

export const updateChannelSchema = z
  .strictObject({
    name: displayText({ min: 1, max: 80 }).optional(),
    domain: domainSchema.optional(),
    allowed_origins: setOf(originSchema, 50).optional(),
    first_party_origins: setOf(originSchema, 20).optional(),
    status: z.enum(['active', 'disabled']).optional(),
    routing_pool: routingPoolSchema.optional(),
    routing: routingSettingsSchema.partial().optional(),
    language: languageSettingSchema.optional(),
    knowledge: channelKnowledgeSchema.partial().optional(),
    widget: widgetConfigPatchSchema.optional(),
  })
  .openapi('UpdateChannel');

export const channelSchema = z
  .object({
    channel_key: z.string().openapi({ example: 'ch_01m82…' }),
    workspace_id: z.string(),
    name: z.string(),
    domain: z.string(),
    status: z.enum(['active', 'disabled']),
    allowed_origins: z.array(z.string()),
    first_party_origins: z.array(z.string()),
    routing_pool: routingPoolSchema,
    routing: routingSettingsSchema,
    language: languageSettingSchema,
    knowledge: channelKnowledgeSchema,
    widget: widgetConfigSchema,
    snippet: z.string().openapi({ description: 'The <script> tag to paste into a site.' }),
    hosted_inbox_url: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Channel');
export type ChannelView = z.infer<typeof channelSchema>;

export const publicWidgetConfigSchema = z
  .object({
    channel_key: z.string(),
    language: z.enum(LANGUAGES).openapi({
      description: 'The language chosen for this visitor: `?lang=`, else the channel’s, else the browser’s, else `en`.',
    }),
    direction: z.enum(['ltr', 'rtl']),
    brand: widgetConfigSchema.shape.brand,
    colors: widgetConfigSchema.shape.colors,
    position: widgetConfigSchema.shape.position,
    copy: widgetConfigSchema.shape.copy.openapi({
      description: 'The copy in that language: the owner’s where they wrote it, else the catalog’s.',
    }),
    lead_capture: widgetConfigSchema.shape.lead_capture,
    provider_entry: z.object({
      enabled: z.boolean(),
      label: z.string(),
      url: z.string().openapi({ description: '{auth_url}/sign-up?role=provider&ref={channel_key}' }),
    }),
    hosted_inbox_url: z.string(),
    intake_url: z.string().openapi({
      description:
        'Intake. Beside it, with the visitor’s session as bearer: `…/messages` (the thread) and `…/live-ticket`.',
    }),
  })
  .openapi('PublicWidgetConfig');
export type PublicWidgetConfig = z.infer<typeof publicWidgetConfigSchema>;

export const INTAKE_TEXT_LIMIT = MESSAGE_MAX_CHARS;
export const intakeTriggerSchema = z.enum(TRIGGERS);
export type IntakeTrigger = z.infer<typeof intakeTriggerSchema>;

export const intakeRequestSchema = z
  .strictObject({
    session_id: z
      .string()
      .max(100)
      .optional()
      .openapi({ description: 'Issued by the first intake; send it back to continue.' }),
    message: z.strictObject({ text: z.string().trim().min(1).max(INTAKE_TEXT_LIMIT) }).optional(),
    trigger: intakeTriggerSchema.default('consultation'),
    contact: z
      .strictObject({
        name: displayText({ max: 120 }).optional(),
        email: z
          .email()
          .max(254)
          .optional()
          .or(z.literal('').transform(() => undefined)),
        phone: z
          .string()
          .trim()
          .max(40)
          .regex(/^[+0-9 ().-]{5,40}$/, 'Use digits, spaces and + ( ) . - only.')
          .optional()
          .or(z.literal('').transform(() => undefined)),
      })
      .optional(),
    attribution: attributionSchema.optional(),
    // Not checked beyond its length: a browser's odd value never costs the visitor their message; a
    // value that is not a language tag is ignored.
    language: z
      .string()
      .max(100)
      .optional()
      .openapi({
        description:
          'The visitor’s language, a BCP 47 tag (the widget sends the language it shows). One with a catalog ' +
          '(`en`, `de`, `fr`, `es`, `pt`, `nl`, `it`, `pl`, `ar`, `he`) becomes the conversation’s: its replies and ' +
          'emails speak it. Without it, the conversation keeps its language, else the channel’s `language`, else ' +
          '`Accept-Language`. New leads are offered first to experts who speak it.',
        example: 'de-DE',
      }),
    /** Honeypot: a hidden form field that people leave empty and bots fill in. */
    website: z.string().max(500).optional(),
  })
  .superRefine((body, context) => {
    if (body.trigger !== 'lead_capture' && !body.message) {
      context.addIssue({ code: 'custom', path: ['message', 'text'], message: 'A message is required.' });
    }
  })
  .openapi('IntakeRequest');
export type IntakeRequest = z.infer<typeof intakeRequestSchema>;

export const intakeResponseSchema = z
  .object({
    session_id: z.string(),
    reply: z.string().openapi({ description: 'What to show the visitor.' }),
    demand_id: z
      .string()
      .optional()
      .openapi({ description: 'The conversation’s one demand: the same for every message of it.' }),
    reference: z.string().optional().openapi({
      example: 'D-8S5BSX',
      description: 'The reference the visitor sees, the same for the whole conversation.',
    }),
    lead_id: z.string().optional(),
    answered_by: z
      .object({ kind: z.enum(['agent', 'robot', 'knowledge']), name: z.string() })
      .optional()
      .openapi({
        description:
          'Set when an agent, a robot or the workspace’s own knowledge wrote the reply (not a person): the widget ' +
          'says so (a knowledge answer as “Answer from the brand’s help”, with its sources).',
      }),
    next: z.enum(['continue', 'collect_contact', 'done']).openapi({
      description: '`collect_contact`: show the contact form; `done`: the lead is captured.',
    }),
    messages: z.array(messageSchema).openapi({
      description:
        'The messages this turn stored (the visitor’s, and the reply when there is one), with their ids: the thread ' +
        'and the live socket carry the same ids, so a client shows each once.',
    }),
  })
  .openapi('IntakeResponse');
export type IntakeResponse = z.infer<typeof intakeResponseSchema>;
