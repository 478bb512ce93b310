/**
 * How long each class of record stays in D1 (docs/design/data-lifecycle.md), in days: settings
 * (RETENTION_*_DAYS) over these defaults. Delivered webhook deliveries and their attempt log 30;
 * events and emails 90; an execution's stored request (its demand's text, structured input and
 * attachments) 90, the rows themselves kept for the ledger and the insights; audit 400.
 */
export const RETENTION_DEFAULT_DAYS = {
  deliveries: 30,
  events: 90,
  emails: 90,
  executionBodies: 90,
  audit: 400,
} as const;

/** The retention in force, in days per class. */
export type Retention = { [K in keyof typeof RETENTION_DEFAULT_DAYS]: number };

/** Rows the housekeeping sweep archives and removes in one tick, at most, over every class. */
export const SWEEP_ROW_LIMIT = 5_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The moment before which a class's records have expired. */
export function expiredBefore(retention: Retention, kind: keyof Retention, now: number): number {
  return now - retention[kind] * DAY_MS;
}

/** The retention from the settings, each a whole number of days (1 to 3,650), else its default. */
export function retentionFrom(settings: Partial<Record<string, unknown>>): Retention {
  const read = (name: string, fallback: number) => {
    const value = Number(settings[name]);
    return Number.isInteger(value) && value >= 1 && value <= 3650 ? value : fallback;
  };
  return {
    deliveries: read('RETENTION_DELIVERIES_DAYS', RETENTION_DEFAULT_DAYS.deliveries),
    events: read('RETENTION_EVENTS_DAYS', RETENTION_DEFAULT_DAYS.events),
    emails: read('RETENTION_EMAILS_DAYS', RETENTION_DEFAULT_DAYS.emails),
    executionBodies: read('RETENTION_EXECUTION_BODIES_DAYS', RETENTION_DEFAULT_DAYS.executionBodies),
    audit: read('RETENTION_AUDIT_DAYS', RETENTION_DEFAULT_DAYS.audit),
  };
}
