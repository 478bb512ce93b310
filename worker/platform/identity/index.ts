/**
 * Identity: users, sessions and sign-in, organisations, workspaces and memberships, API keys and
 * admin tokens, the audit log, and the guards that authenticate a request against the access policy.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { type AccountRole, signIn, signUp } from './accounts';
export {
  type Actor,
  findKeyContext,
  forgetCachedKeys,
  freshKeyRefusal,
  type KeyContext,
  keyInactiveReason,
  quotaPeriod,
  workspaceInactive,
} from './credentials';
export {
  isSameOriginRequest,
  requireActor,
  requireAdmin,
  requireBearer,
  requireOwnerOrNamingAdmin,
  requireWorkspace,
  requireWorkspaceAccess,
  SAFE_METHODS,
} from './guards';
export {
  answerInvitation,
  type InvitationView,
  inviteMember,
  listOpenInvitations,
  revokeInvitation,
} from './invitations';
export {
  changeMembership,
  createOrganizationForUser,
  listMembers,
  listMemberships,
  type MembershipView,
  type MemberWorkspaces,
  requireRole,
  resolveMemberWorkspace,
} from './memberships';
export {
  createOrganization,
  createWorkspace,
  findUserByEmail,
  listOrganizations,
  listWorkspaces,
  setBlockedTerms,
  setDefaultDomain,
  setPlatformAdmin,
  setStatus,
  workspaceRiskPolicy,
} from './service';
export {
  clearSessionCookie,
  createSession,
  readSessionToken,
  revokeSession,
  type SessionUser,
  deviceOf,
  listSessions,
  revokeOtherSessions,
  revokeSessionByHandle,
  setSessionCookie,
  validateSession,
} from './sessions';
export { joinTenant, tenantIsActive, workspaceDefaultDomain } from './tenants';
export { readResetLink, requestPasswordReset, RESET_LIMITS, resetPassword } from './recovery';
export {
  type SecurityEventKind,
  recentSecurityEvents,
  recordSignIn,
  recordFailedSignIn,
  recordSecurityEvent,
  securityEventInsert,
} from './security-events';
export {
  cancelTotpEnrolment,
  confirmTotp,
  FACTOR_LOCK,
  pendingEnrolment,
  type TotpEnrolment,
  hasSecondFactor,
  pendingSignInToken,
  pendingSignInUser,
  readPendingSignIn,
  spendPendingSignIn,
  removeSecondFactor,
  secondFactorKinds,
  secondFactorStatus,
  startTotpEnrolment,
  TOTP_DIGITS,
  TOTP_PERIOD_S,
  verifySecondFactor,
} from './second-factor';
export { purgeEndedSessions } from './sessions';
export { markSessionConfirmed, sessionRecentlyConfirmed, STEP_UP_MS } from './step-up';
export { memberMayWorkIn, setSecondFactorRequirement } from './factor-policy';
export {
  addPasskey,
  listPasskeys,
  MAX_PASSKEYS,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  type RelyingParty,
  removePasskey,
  renamePasskey,
  verifyPasskeySignIn,
} from './passkeys';
export {
  changeEmail,
  RESEND_LIMIT,
  requireVerifiedEmail,
  sendVerificationAgain,
  verifyEmail,
} from './verification';
