/**
 * A claim's directory side (docs/design/scale.md#the-layout): the expert is the platform's, the
 * lead its organisation's, so a claim crosses two databases and no one batch holds it. It runs as
 * three steps. The reservation, in the directory: the expert's attempt and claim are counted
 * against their hourly limits and the lead's fee is held out of their balance (one reservation of
 * a lead at a time: of two experts claiming at once, the second is refused here). The claim
 * itself, on the lead's shard (leads/claim.ts). Then the reservation settles (the fee paid, the
 * expert's round-robin time and reveal count) or, when the claim did not apply, is given back
 * (nothing paid, the claim uncounted). Nothing is paid before the claim is won, so nothing is ever
 * paid back. A claimer that stops between the steps leaves a reservation the minute's sweep
 * finishes, by whether the lead's shard has the claim.
 */
import { and, asc, eq, lt, type SQL, sql } from 'drizzle-orm';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { readWindows, windowIncrement } from '../../lib/rate-limit';
import {
  balanceOf,
  feeInOtherCurrency,
  insufficientCredits,
  type LeadPrice,
  leadFeeInsert,
  leadFeePaid,
  providerEscrow,
  providerEscrowSql,
} from '../billing';
import { handleInWorkspace, inDirectory } from '../shards';
import type { ProviderRow } from '../providers';
import { CLAIM_BOUNDS } from '../../brain';

const { claimReservations, escrows, leadEvents, providers, rateLimitWindows } = schema;
const { claimsPerHour: CLAIMS_PER_HOUR, claimAttemptsPerHour: CLAIM_ATTEMPTS_PER_HOUR } = CLAIM_BOUNDS;

/** An hour: the claim limits' window. */
export const HOUR_MS = 60 * 60 * 1000;

/** How long a reservation may stay open before the sweep finishes it: far longer than a claim takes. */
export const RESERVATION_GRACE_MS = 60_000;

/** A reservation, as the claim's later steps need it. */
export interface Reservation {
  changeId: string;
  leadId: string;
  providerId: string;
  workspaceId: string;
  feeTransferId: string;
}

/** The claim limits' subjects of an expert: all attempts, and the claims that won. */
export const claimSubjects = (providerId: string) => ({
  attempts: `claim-attempts:${providerId}`,
  claims: `claims:${providerId}`,
});

/**
 * Reserves a claim in the directory: counts the attempt (429 past its hourly limit), holds the
 * lead's fee out of the expert's balance (402 without the funds, 409 in another currency; nothing
 * for a free lead or one they paid for before) and counts the claim (429 past its limit); 409
 * while another expert's reservation of the lead is open.
 */
export async function reserveClaim(
  directory: Database,
  claim: { provider: ProviderRow; leadId: string; workspaceId: string; price: LeadPrice },
  now: number,
): Promise<Reservation> {
  const { provider, leadId, workspaceId, price } = claim;
  const subjects = claimSubjects(provider.id);
  const reservation: Reservation = {
    changeId: newId('lev', now),
    leadId,
    providerId: provider.id,
    workspaceId,
    feeTransferId: newId('trf', now),
  };
  const escrow = providerEscrowSql(provider.id);
  const fee = sql`CASE WHEN ${leadFeePaid(provider.id, leadId)} THEN 0 ELSE ${price.minor ?? 0} END`;
  const held = sql`coalesce((SELECT sum(fee_minor) FROM ${claimReservations} WHERE provider_id = ${provider.id}
    AND state = 'reserved'), 0)`;
  const affordable = sql`${fee} = 0 OR ((SELECT currency FROM ${escrows} WHERE id = ${escrow}) = ${price.currency}
    AND ${balanceOf(escrow)} - ${held} >= ${fee})`;
  const reserved = sql`EXISTS (SELECT 1 FROM ${claimReservations} WHERE change_id = ${reservation.changeId})`;
  let rows: Array<{ changeId: string }>;
  try {
    [, rows] = await directory.batch([
      windowIncrement(directory, subjects.attempts, now, HOUR_MS, CLAIM_ATTEMPTS_PER_HOUR),
      directory.all<{ changeId: string }>(sql`INSERT INTO ${claimReservations} (change_id, lead_id, provider_id,
          workspace_id, fee_minor, fee_currency, fee_transfer_id, window_start, state, created_at)
        SELECT ${reservation.changeId}, ${leadId}, ${provider.id}, ${workspaceId}, ${fee}, ${price.currency},
          ${reservation.feeTransferId}, ${now}, 'reserved', ${now}
        WHERE ${affordable}
        RETURNING change_id AS "changeId"`),
      // Counted only with the reservation; the 31st claim an hour fails the whole batch.
      windowIncrement(directory, subjects.claims, now, HOUR_MS, CLAIMS_PER_HOUR, {
        increment: sql`CASE WHEN ${reserved} THEN 1 ELSE 0 END`,
      }),
      // The claims window the reservation counted in, to give its count back if the claim loses.
      directory.run(sql`UPDATE ${claimReservations} SET window_start = (SELECT window_start FROM
        ${rateLimitWindows} WHERE key_id = ${subjects.claims}) WHERE change_id = ${reservation.changeId}`),
    ]);
  } catch (error) {
    if (isConstraintViolation(error, 'claim_reservations'))
      throw new ApiError('already_claimed', 'Another expert claimed this lead first.');
    if (isConstraintViolation(error, 'within_window_limit')) throw await claimsRateLimited(directory, provider.id, now);
    throw error;
  }
  if (rows.length === 0) {
    const account = await providerEscrow(directory, provider.id);
    if (account && account.currency !== price.currency) throw await feeInOtherCurrency(directory, provider.id, price);
    throw insufficientCredits(price);
  }
  return reservation;
}

/** The 429 of an expert past an hourly claim limit, with when its window opens again. */
async function claimsRateLimited(directory: Database, providerId: string, now: number): Promise<ApiError> {
  const subjects = claimSubjects(providerId);
  const windows = await readWindows(directory, [subjects.claims, subjects.attempts], now, HOUR_MS);
  const full = windows.find((window) => window.maxCount !== null && window.count >= window.maxCount) ?? windows[0];
  const retryAfter = Math.max(1, Math.ceil(((full?.resetAt ?? now + HOUR_MS) - now) / 1000));
  const attempts = full?.subject === subjects.attempts;
  return new ApiError(
    'rate_limited',
    attempts
      ? `At most ${CLAIM_ATTEMPTS_PER_HOUR} claim attempts an hour.`
      : `At most ${CLAIMS_PER_HOUR} claims an hour.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}

/** The reservation's row, when it is still open: a condition for the step that closes it. */
const closedNow = (changeId: string, state: 'settled' | 'returned', now: number) =>
  sql`EXISTS (SELECT 1 FROM ${claimReservations} WHERE change_id = ${changeId} AND state = ${state}
    AND settled_at = ${now})`;

/** The claim applied: the reservation settles, its fee paid, the expert's round-robin time and reveals counted. */
export async function settleClaim(directory: Database, reservation: Reservation, now: number): Promise<void> {
  const settled = closedNow(reservation.changeId, 'settled', now);
  const held = (column: SQL) =>
    sql`(SELECT ${column} FROM ${claimReservations} WHERE change_id = ${reservation.changeId})`;
  await directory.batch([
    directory
      .update(claimReservations)
      .set({ state: 'settled', settledAt: now })
      .where(and(eq(claimReservations.changeId, reservation.changeId), eq(claimReservations.state, 'reserved'))),
    leadFeeInsert(
      directory,
      {
        providerId: reservation.providerId,
        leadId: reservation.leadId,
        transferId: reservation.feeTransferId,
        amount: held(sql`fee_minor`),
        currency: held(sql`fee_currency`),
        when: settled,
      },
      now,
    ),
    directory
      .update(providers)
      .set({ lastClaimedAt: now, contactReveals: sql`${providers.contactReveals} + 1` })
      .where(and(eq(providers.id, reservation.providerId), settled)),
  ]);
}

/**
 * The claim did not apply: the reservation is given back (its hold on the balance ends) and its
 * claim uncounted in the window it was counted in. Once: a second call finds it closed.
 */
export async function returnClaim(directory: Database, reservation: Reservation, now: number): Promise<void> {
  const returned = closedNow(reservation.changeId, 'returned', now);
  const subjects = claimSubjects(reservation.providerId);
  await directory.batch([
    directory
      .update(claimReservations)
      .set({ state: 'returned', settledAt: now })
      .where(and(eq(claimReservations.changeId, reservation.changeId), eq(claimReservations.state, 'reserved'))),
    directory
      .update(rateLimitWindows)
      .set({ count: sql`max(${rateLimitWindows.count} - 1, 0)` })
      .where(
        and(
          eq(rateLimitWindows.keyId, subjects.claims),
          sql`${rateLimitWindows.windowStart} = (SELECT window_start FROM ${claimReservations}
            WHERE change_id = ${reservation.changeId})`,
          returned,
        ),
      ),
  ]);
}

/**
 * Finishes the reservations left open past their grace (a claimer stopped between the steps): each
 * settled when its lead's shard has the claim's event, else given back. For the minute's cron.
 */
export async function finishOpenReservations(db: Database, now: number, limit = 50): Promise<number> {
  const directory = inDirectory(db);
  const open = await directory
    .select()
    .from(claimReservations)
    .where(and(eq(claimReservations.state, 'reserved'), lt(claimReservations.createdAt, now - RESERVATION_GRACE_MS)))
    .orderBy(asc(claimReservations.createdAt))
    .limit(limit);
  for (const row of open) {
    const reservation: Reservation = { ...row, feeTransferId: row.feeTransferId ?? '' };
    const shard = await handleInWorkspace(db, row.workspaceId);
    const claimed = shard
      ? await shard.select({ id: leadEvents.id }).from(leadEvents).where(eq(leadEvents.id, row.changeId)).get()
      : undefined;
    if (claimed) await settleClaim(directory, reservation, now);
    else await returnClaim(directory, reservation, now);
  }
  return open.length;
}
