import { expect, vi } from 'vitest';
import { newDomain } from './agent-helpers';
import { call, createTenant } from './helpers';
import {
  createActiveExpert,
  createChannel,
  SITE,
  sessionCall,
  type TestProvider,
  visitorSays,
} from './provider-helpers';
import { workerFetch } from './self';

/**
 * Waits for a condition for up to 15 s (vi.waitUntil's 1 s is too short on a loaded 2-core machine,
 * where CI runs this suite beside the browser tests). On a timeout, `state` says what was seen.
 */
export async function until<T>(check: () => T | Promise<T>, state?: () => unknown): Promise<T> {
  try {
    return await vi.waitUntil(check, { timeout: 15_000, interval: 20 });
  } catch (error) {
    if (!state) throw error;
    throw new Error(`Timed out waiting; the state then: ${JSON.stringify(state())}`);
  }
}

export interface Frame {
  type: string;
  [key: string]: any;
}

/** A live socket through the real Worker and room, with every frame it received. */
export async function openSocket(url: string) {
  const response = await workerFetch(url.replace(/^ws/, 'http'), { headers: { Upgrade: 'websocket' } });
  if (response.status !== 101) throw new Error(`${response.status}: ${await response.text()}`);
  const socket = response.webSocket!;
  socket.accept();
  const frames: Frame[] = [];
  socket.addEventListener('message', (event) => frames.push(JSON.parse(String(event.data))));
  const messages = () => frames.filter((frame) => frame.type === 'message').map((frame) => frame.message.text);
  return { socket, frames, messages, send: (frame: unknown) => socket.send(JSON.stringify(frame)) };
}

export const visitorHeaders = (session: string) => ({ Origin: SITE, Authorization: `Bearer ${session}` });

export async function visitorTicket(channelKey: string, session: string) {
  return call(`/api/public/channels/${channelKey}/live-ticket`, { method: 'POST', headers: visitorHeaders(session) });
}

export async function providerTicket(expert: TestProvider, leadId: string) {
  return sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/live-ticket`, { method: 'POST' });
}

export const reply = (expert: TestProvider, leadId: string, text: string) =>
  sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/messages`, { body: { text } });

export const thread = (channelKey: string, session: string, after?: string) =>
  call(`/api/public/widget/${channelKey}/messages${after ? `?after=${after}` : ''}`, {
    headers: visitorHeaders(session),
  });

/** A channel of its own domain, an expert for it, and a visitor whose handoff made a lead the expert claimed. */
export async function claimedLead() {
  const domain = await newDomain('live');
  const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
  const channelKey = await createChannel(tenant.token, { domain });
  const expert = await createActiveExpert({ domains: [domain] });
  const first = await visitorSays(channelKey, { message: { text: 'Hello, I need a person.' }, trigger: 'handoff' });
  const session = first.session_id as string;
  const leadId = first.lead_id as string;
  const claimed = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' });
  expect(claimed.status).toBe(200);
  return { domain, tenant, channelKey, expert, session, leadId };
}
