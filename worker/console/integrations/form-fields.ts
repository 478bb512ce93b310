/** The channel and widget fields of the console's forms, in the shapes the channel schemas take. */
import { widgetConfigPatchSchema } from '../../platform/channels';
import { routingFromForm } from './lead-operations';

/** Entries one per line (a term may contain spaces). */
export const linesOf = (value: string | undefined) =>
  (value ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** Origins, separated by any white space. */
const originsOf = (value: string | undefined) =>
  (value ?? '')
    .split(/\s+/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The channel settings fields of a console form, in the shape the channel schemas take. */
export const channelFieldsFromForm = (form: Record<string, string>) => ({
  name: form.name,
  domain: form.domain,
  allowed_origins: originsOf(form.allowed_origins),
  first_party_origins: originsOf(form.first_party_origins),
  ...(form.routing_pool !== undefined ? { routing_pool: form.routing_pool } : {}),
  ...(form.language !== undefined ? { language: form.language } : {}),
  ...(routingFromForm(form) ? { routing: routingFromForm(form) } : {}),
});

/** Nested widget fields (`colors.primary`) from a flat form into a WidgetConfigPatch. */
export function widgetPatchFromForm(form: Record<string, string>) {
  const patch: Record<string, unknown> & { [section: string]: Record<string, unknown> | string } = {};
  if (form.copy_language) patch.copy_language = form.copy_language;
  for (const [name, value] of Object.entries(form)) {
    const [section, field] = name.split('.');
    if (!section || !field) continue;
    patch[section] ??= {};
    const fields = patch[section] as Record<string, unknown>;
    fields[field] = field.startsWith('offset_')
      ? Number(value)
      : section === 'brand' && field === 'logo_url' && value === ''
        ? null
        : value;
  }
  return widgetConfigPatchSchema.safeParse(patch);
}
