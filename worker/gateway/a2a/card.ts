/**
 * The gateway's agent card (docs/design/callers.md), public at /.well-known/agent-card.json: A2A
 * 1.0's fields (its interfaces, a skill per catalog domain, a bearer scheme), and the fields a 0.3
 * client reads (`url`, `preferredTransport`, `protocolVersion`, `security`), so that a client of
 * either version connects from it.
 */
import type { DomainEntry } from '../../platform/domains';

const MODES = ['text/plain', 'application/json'];

/** What the gateway's A2A endpoint supports, as the card declares it (and the handler honours). */
export const A2A_CAPABILITIES = { streaming: true, pushNotifications: false, extendedAgentCard: false } as const;

/** The versions the endpoint speaks, newest first. */
export const A2A_VERSIONS = ['1.0', '0.3'] as const;

/** The gateway's agent card as JSON, with one skill per domain of the catalog. */
export function gatewayAgentCard(baseUrl: string, domains: DomainEntry[]): Record<string, unknown> {
  const endpoint = `${baseUrl}/a2a`;
  return {
    name: 'Edge Execution Gateway',
    description:
      'Hands a demand to the platform’s agents, robots and human experts, and answers with an audited execution ' +
      'envelope. Send a text part (a data part may name {"domain": …}; without it the gateway picks one); the ' +
      'contextId is the conversation, and each answer is a completed task.',
    version: '1.0.0',
    provider: { organization: 'Edge Execution Gateway', url: baseUrl },
    documentationUrl: `${baseUrl}/docs/a2a`,
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({
      url: endpoint,
      protocolBinding: 'JSONRPC',
      protocolVersion,
    })),
    // A2A 0.3 reads these.
    url: endpoint,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    capabilities: A2A_CAPABILITIES,
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: domains.map((entry) => ({
      id: entry.domain,
      name: entry.name,
      description: entry.description ?? `Demands about ${entry.name.toLowerCase()}.`,
      tags: [entry.domain],
      examples: [],
      inputModes: MODES,
      outputModes: MODES,
    })),
    // One scheme object has one shape, and it is 1.0's (the A2A kit checks for exactly one member):
    // 0.3 clients authenticate as they are configured, and read `security` for the scheme's name.
    securitySchemes: {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: 'egk_…',
          description: 'An API key with the execute scope.',
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    security: [{ bearer: [] }],
  };
}
