/**
 * Widget and hosted-inbox intake: the platform core's admission for a channel (honeypot, rate
 * limit per channel and client, contact rules), then the same executor as /api/execute, and one
 * D1 batch with the visitor session, both messages, what the brain produced, the execution and
 * its audit record. Channel existence and the origin check run before, in the route.
 */
import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { findExecutor } from '../brain/executors';
import { base58, sha256Hex } from '../lib/crypto';
import { schema, type Database } from '../lib/db';
import { ApiError, type FieldError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { IntakeRequest, IntakeResponse } from './channels/schemas';
import { widgetConfigOf, type ActiveChannel, type ChannelRow } from './channels/service';
import { executionRecordWrites } from './execution';
import { consumeRateLimit } from './rate-limit';

const { visitorSessions, visitorMessages, leads } = schema;

export interface IntakeCommand {
  channel: ActiveChannel;
  request: IntakeRequest;
  /** The client's IP address; only a hash of it is stored, as the rate-limit subject. */
  clientIp: string;
  requestId: string;
  traceId: string;
  rateLimitPerMinute: number;
  now: number;
}

/** The visitor's session token: 128 random bits. D1 keeps only its SHA-256. */
function newVisitorToken(): string {
  return `vs_${base58(crypto.getRandomValues(new Uint8Array(16)))}`;
}

function missingContactFields(channel: ChannelRow, request: IntakeRequest): FieldError[] {
  const rules = widgetConfigOf(channel).lead_capture;
  return (['name', 'email', 'phone'] as const)
    .filter((field) => rules[field] === 'required' && !request.contact?.[field])
    .map((field) => ({ pointer: `/contact/${field}`, detail: `${field} is required by this channel.` }));
}

async function findSession(db: Database, channel: ChannelRow, token: string) {
  return db
    .select({
      id: visitorSessions.id,
      attribution: visitorSessions.attribution,
      leadId: visitorSessions.leadId,
      leadEmail: leads.contactEmail,
      leadPhone: leads.contactPhone,
    })
    .from(visitorSessions)
    .leftJoin(leads, eq(leads.id, visitorSessions.leadId))
    .where(and(eq(visitorSessions.tokenHash, await sha256Hex(token)), eq(visitorSessions.channelId, channel.id)))
    .get();
}

export async function runIntake(db: Database, command: IntakeCommand): Promise<IntakeResponse> {
  const { channel, request, now } = command;

  // A filled honeypot is a bot: answer as if all went well, store nothing, teach it nothing.
  if (request.website) {
    return { session_id: request.session_id ?? newVisitorToken(), reply: 'Thanks, we got your message.', next: 'continue' };
  }

  const clientHash = (await sha256Hex(command.clientIp)).slice(0, 24);
  const rateLimit = await consumeRateLimit(db, `intake:${channel.id}:${clientHash}`, command.rateLimitPerMinute, now);
  if (!rateLimit.allowed) {
    throw new ApiError('rate_limited', 'Too many messages from this connection. Try again in a minute.', {
      headers: { 'Retry-After': String(rateLimit.resetSeconds) },
    });
  }
  if (request.trigger === 'lead_capture') {
    const missing = missingContactFields(channel, request);
    if (missing.length > 0) throw new ApiError('validation_failed', 'Some contact details are required.', { errors: missing });
  }
  const executor = findExecutor(channel.domain);
  if (!executor) throw new ApiError('unknown_domain', 'This channel is not connected to a working domain.');

  const existing = request.session_id ? await findSession(db, channel, request.session_id) : undefined;
  const token = existing ? request.session_id! : newVisitorToken();
  const visitorSessionId = existing?.id ?? newId('vs', now);
  // Attribution is first touch: the session keeps what its first intake reported.
  const attribution = existing?.attribution ?? request.attribution ?? null;

  const executionId = newId('exe', now);
  const plan = await executor(db, {
    executionId,
    organizationId: channel.organizationId,
    workspaceId: channel.workspaceId,
    domain: channel.domain,
    text: request.message?.text,
    grantedScopes: ['execute', 'leads:write'],
    intake: {
      channelId: channel.id,
      visitorSessionId,
      trigger: request.trigger,
      attribution: attribution ?? undefined,
      contact: request.contact,
      existingLeadId: existing?.leadId ?? null,
    },
    now,
  });
  const leadId = plan.result.lead_id;

  const writes: BatchItem<'sqlite'>[] = [
    existing
      ? db.update(visitorSessions).set({ lastSeenAt: now, leadId: leadId ?? existing.leadId }).where(eq(visitorSessions.id, existing.id))
      : db.insert(visitorSessions).values({
          id: visitorSessionId,
          channelId: channel.id,
          workspaceId: channel.workspaceId,
          tokenHash: await sha256Hex(token),
          attribution,
          leadId: leadId ?? null,
          createdAt: now,
          lastSeenAt: now,
        }),
    ...(request.message
      ? [db.insert(visitorMessages).values({ id: newId('msg', now), visitorSessionId, role: 'visitor', text: request.message.text, createdAt: now })]
      : []),
    ...plan.writes,
    db.insert(visitorMessages).values({ id: newId('msg', now), visitorSessionId, role: 'assistant', text: plan.result.reply, createdAt: now }),
    ...executionRecordWrites(db, {
      executionId,
      auditId: newId('aud', now),
      organizationId: channel.organizationId,
      workspaceId: channel.workspaceId,
      keyId: null,
      actorKind: 'channel',
      actorId: channel.channelKey,
      domain: channel.domain,
      requestId: command.requestId,
      traceId: command.traceId,
      sessionId: visitorSessionId,
      grantedScopes: ['execute', 'leads:write'],
      sourceRecord: plan.sourceRecord,
      now,
    }),
  ];
  const [first, ...rest] = writes;
  await db.batch([first!, ...rest]);

  const rules = widgetConfigOf(channel).lead_capture;
  const asksForContact = rules.name !== 'off' || rules.email !== 'off' || rules.phone !== 'off';
  const hasContact = Boolean(
    request.contact?.email || request.contact?.phone || existing?.leadEmail || existing?.leadPhone,
  );
  const next: IntakeResponse['next'] =
    request.trigger === 'lead_capture' ? 'done' : asksForContact && !hasContact ? 'collect_contact' : 'continue';
  return {
    session_id: token,
    reply: plan.result.reply,
    demand_id: plan.result.demand_id,
    ...(leadId ? { lead_id: leadId } : {}),
    next,
  };
}
