/** @jsxImportSource hono/jsx */
/**
 * A channel's lead operations on its console page (docs/design/lead-operations.md): the routing settings
 * in its form, and each lead's wave and response times in its recent intake.
 */
import type { ChannelView } from '../../platform/channels';
import type { IntakeEntry } from '../../platform/leads';
import { Field, type FieldErrors } from '../shared/forms';
import { spokenDuration } from '../shared/duration';

const ROUTING_FIELDS = [
  ['offer_first', 'Offer a new lead first to this many experts', 'The best matches; 1 to 50. Default 3.'],
  ['offer_widen_minutes', 'Then to every matching expert after (minutes)', 'Unclaimed this long. Default 10.'],
  ['escalate_minutes', 'Email this workspace’s owners after (minutes)', 'Still unclaimed. Default 60.'],
  ['claim_sla_minutes', 'Release a claim with no reply after (minutes)', 'Then offered to others. Default 60.'],
] as const;

/** The four routing settings, as number fields named `routing.<setting>`. */
export function RoutingFields({ routing, errors }: { routing: ChannelView['routing']; errors: FieldErrors }) {
  return (
    <fieldset class="stack">
      <legend>Lead operations</legend>
      {ROUTING_FIELDS.map(([name, label, hint]) => (
        <Field
          name={`routing.${name}`}
          label={label}
          type="number"
          value={routing[name]}
          errors={errors}
          hint={hint}
          required
        />
      ))}
    </fieldset>
  );
}

/** The routing fields of a submitted form, as numbers (an empty field fails validation). */
export function routingFromForm(form: Record<string, string>): Record<string, number> | undefined {
  const entries = ROUTING_FIELDS.map(([name]) => [name, form[`routing.${name}`]] as const).filter(
    ([, value]) => value !== undefined,
  );
  return entries.length ? Object.fromEntries(entries.map(([name, value]) => [name, Number(value)])) : undefined;
}

/** The lead's wave, and its times to first claim and first reply (docs/design/insights.md defines both). */
export function leadTimes(lead: NonNullable<IntakeEntry['lead']>): string {
  if (lead.held) return "held: this month's allowance is used up (offered as soon as it allows)";
  const wave = lead.wave === 1 ? 'first wave' : 'offered to all';
  const claim =
    lead.seconds_to_first_claim === null
      ? 'not claimed yet'
      : `first claim after ${spokenDuration(lead.seconds_to_first_claim)}`;
  const contact =
    lead.seconds_to_first_contact === null
      ? ''
      : ` · first reply after ${spokenDuration(lead.seconds_to_first_contact)}`;
  return `${wave} · ${claim}${contact}`;
}
