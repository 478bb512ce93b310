/**
 * The lead policy, declared in one place (docs/design/lead-operations.md): who a new lead is
 * offered to and in what order, when the offer widens, escalates and lapses, and the bounds on an
 * expert's claims. The SQL of the leads module carries it out (offers.ts ranks by `ranking`, in this
 * order; timers.ts fires the timers; claim.ts applies the bounds); the channel schemas bound the
 * settings an owner may change with `settingBounds`.
 */

/** A channel's lead operations, and what a channel starts with (owners may change them). */
export const ROUTING_DEFAULTS = {
  /** The first wave: how many of the best matching experts a new lead is offered to. */
  offer_first: 3,
  /** Unclaimed this long, the lead is offered to every matching expert (the second wave). */
  offer_widen_minutes: 10,
  /** Unclaimed this long, the workspace's owners are emailed and `lead.unclaimed` is written. */
  escalate_minutes: 60,
  /** A claim with no reply and no move to `contacted` for this long is released and offered again. */
  claim_sla_minutes: 60,
} as const;
export type RoutingSettings = { [K in keyof typeof ROUTING_DEFAULTS]: number };

/**
 * The offer ranking, best first: each criterion breaks the ties of the one before (the expert's id
 * makes it total). The leads module maps each to its SQL.
 */
export const OFFER_RANKING = [
  /** An expert who lists topics (and so matched this one) before one who takes any topic. */
  'topic_specificity',
  /** The visitor's language among the expert's. */
  'language',
  /** The visitor's country among the expert's regions; then `global`; then neither. */
  'region',
  /** The fewest leads held now. */
  'open_claims',
  /** The longest since their last claim: a round robin. */
  'longest_since_claim',
] as const;
export type OfferCriterion = (typeof OFFER_RANKING)[number];

/**
 * The waves of an offer, as the lead's history and the `wave` column number them: a lead held
 * past the workspace's allowance is offered to nobody yet (0).
 */
export const OFFER_WAVES = { held: 0, first: 1, everyone: 2 } as const;

/** What bounds an expert's claims. */
export const CLAIM_BOUNDS = {
  /** The statuses in which a lead counts against its claimer's capacity. */
  heldStatuses: ['claimed', 'contacted', 'qualified'] as const,
  /** `max_open_claims`: an expert's default, and the range they may set. */
  maxOpenClaims: { default: 20, min: 1, max: 100 },
  /** After a release or a lapse, the expert may not claim the same lead for this long. */
  cooldownMs: 24 * 60 * 60 * 1000,
  /** Claims that won, per expert and hour. */
  claimsPerHour: 30,
  /** Claim attempts, won or not, per expert and hour: a bound on hammering, far above honest use. */
  claimAttemptsPerHour: 600,
} as const;

/** The range of each routing setting an owner may choose. */
export const settingBounds = {
  offerFirst: { min: 1, max: 50 },
  /** One minute to one week. */
  minutes: { min: 1, max: 10_080 },
} as const;
