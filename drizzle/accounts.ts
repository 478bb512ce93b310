/**
 * Single-use account links (docs/design/identity-and-access.md): a password reset's link names a
 * row here by its id, and carries the HMAC of that id under the platform's secret, which is never
 * stored: the database alone cannot make a working link. A row is used once (`used_at`, and the
 * request that used it, `used_by`), and not after `expires_at`.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ACCOUNT_TOKEN_PURPOSES } from '../worker/vocabulary';

export const accountTokens = sqliteTable(
  'account_tokens',
  {
    /** `atk_…`: the link's first part. */
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    purpose: text('purpose', { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
    /** The address the link was sent to. */
    email: text('email').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** The request that used it (its `req_…`): the writes of that request alone follow from it. */
    usedBy: text('used_by'),
  },
  (table) => [index('account_tokens_user_idx').on(table.userId, table.purpose)],
);

/**
 * A second factor of an account (docs/design/identity-and-access.md#second-factor): an
 * authenticator app's TOTP key, encrypted with SECRETS_KEY. It counts once confirmed by a code;
 * `last_counter` is the time step of the last code taken, so no code is taken twice.
 */
export const userFactors = sqliteTable(
  'user_factors',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    kind: text('kind', { enum: ['totp'] }).notNull(),
    secret: text('secret').notNull(),
    confirmedAt: integer('confirmed_at'),
    lastCounter: integer('last_counter'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [uniqueIndex('user_factors_user_kind').on(table.userId, table.kind)],
);

/** An account's single-use recovery codes, each stored as its SHA-256. */
export const recoveryCodes = sqliteTable(
  'recovery_codes',
  {
    userId: text('user_id').notNull(),
    codeHash: text('code_hash').notNull(),
    usedAt: integer('used_at'),
  },
  (table) => [primaryKey({ columns: [table.userId, table.codeHash] })],
);

/** What a security event records (docs/design/identity-and-access.md#security-events). */
export const SECURITY_EVENT_KINDS = [
  'signed_in',
  'sign_in_failed',
  'password_reset',
  'factor_on',
  'factor_off',
  'sessions_ended',
  'email_verified',
  'email_changed',
  'passkey_added',
  'passkey_removed',
] as const;

/** An account's recent security events, shown to it on /account/security. */
export const securityEvents = sqliteTable(
  'security_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: text('user_id').notNull(),
    kind: text('kind', { enum: SECURITY_EVENT_KINDS }).notNull(),
    device: text('device'),
    place: text('place'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [index('security_events_user_idx').on(table.userId, table.createdAt)],
);

/**
 * An account's passkeys (docs/design/identity-and-access.md#passkeys): WebAuthn credentials that
 * sign in without a password, or stand as the second factor after one. The public key and the
 * authenticator's signature counter are what a later sign-in is checked against.
 */
export const userPasskeys = sqliteTable(
  'user_passkeys',
  {
    /** The credential id, base64url. */
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    /** The owner's name for it ("Laptop", "Phone"). */
    name: text('name').notNull(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    counter: integer('counter').notNull().default(0),
    /** How the browser may reach it (JSON array of WebAuthn transports). */
    transports: text('transports'),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
  },
  (table) => [index('user_passkeys_user_idx').on(table.userId)],
);

/**
 * WebAuthn challenges, each taken once (deleted when used) within five minutes: a registration's
 * for a signed-in account, a sign-in's for whoever answers it.
 */
export const passkeyChallenges = sqliteTable('passkey_challenges', {
  challenge: text('challenge').primaryKey(),
  purpose: text('purpose', { enum: ['register', 'sign_in'] }).notNull(),
  /** Registration: the account adding a passkey; null for a sign-in (the passkey names its account). */
  userId: text('user_id'),
  expiresAt: integer('expires_at').notNull(),
});
