/**
 * The platform's shared words and limits, written once: every module, the zod schemas and the
 * brain read them from here. A leaf: it imports nothing.
 */

/** The meter every execution is charged to, per key and calendar month. */
export const EXECUTIONS_METER = 'executions';

/**
 * Meters the platform charges itself. A provider's reported usage may never take one of these
 * names: its lines are its own (`source: "provider"`), never mistaken for the platform's charge.
 */
export const PLATFORM_METERS: readonly string[] = [EXECUTIONS_METER];

/** Who reported a usage line: the platform's own charge, or the agent or robot that answered. */
export const USAGE_SOURCES = ['platform', 'provider'] as const;

/** What a provider is: a person who claims leads, an A2A agent, or a signed HTTPS endpoint. */
export const PROVIDER_KINDS = ['expert', 'agent', 'robot'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
