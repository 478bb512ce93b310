import type { Context } from 'hono';
import type { AppEnv } from '../../env';

/** Fixed notices chosen by a code in the URL (`?notice=saved`), so no user text is ever reflected. */
const NOTICES: Record<string, string> = {
  created: 'Channel created. Paste the snippet into your site to go live.',
  saved: 'Saved.',
  erased:
    'Erasure under way: within seconds this visitor’s messages and contact details read “[erased]” here ' +
    'and in the archives.',
  export_requested: 'Export under way: within seconds it is listed below with its download.',
  contact_erased:
    'Erasure under way: within seconds this visitor’s messages and contact details read “[erased]”, in the ' +
    'archives too.',
  passkey_added: 'Passkey added: sign in with it from the sign-in page, or use it as the second step.',
  passkey_removed: 'Passkey removed.',
  confirmed: 'Password confirmed: for the next 5 minutes you may add a passkey or an authenticator app.',
  totp_started: 'Add the key below to your authenticator app, then type the code it shows.',
  totp_cancelled: 'Setting up the authenticator app was cancelled: its key no longer works.',
  factor_off: 'Two-step sign-in is off.',
  sessions_ended: 'Every other session is signed out.',
  no_other_sessions: 'There was no other session to sign out.',
  session_ended: 'That session is signed out.',
  session_gone: 'That session had already ended.',
  org_factor:
    'Your organisation requires two-step sign-in: set up an authenticator app or a passkey below to continue.',
  admin_factor: 'Platform administrators sign in in two steps: set up an authenticator app or a passkey below first.',
  email_changed: 'Your sign-in email is changed. Confirm it with the link we sent to it; the old address was told.',
  enabled: 'Channel enabled.',
  disabled: 'Channel disabled: the widget and hosted inbox are off.',
  invited:
    'Invitation sent. They accept it in the console after signing in (or once they sign up with that address); it ' +
    'expires in 7 days.',
  revoked: 'Invitation withdrawn.',
  accepted: 'Invitation accepted: welcome to the workspace.',
  declined: 'Invitation declined.',
  changed: 'Role updated.',
  removed: 'Member removed.',
  submitted: 'Submitted: your profile is with the platform team for review.',
  claimed: 'You claimed this lead. The contact details are below.',
  replied: 'Your reply is in the conversation. The visitor reads it in the chat window.',
  status: 'Status updated.',
  released: 'Lead released: it is open to other experts again.',
  approved: 'Provider approved: they are active now.',
  rejected: 'Provider sent back with your note.',
  suspended: 'Provider suspended.',
  settings: 'Workspace settings saved.',
  preferences: 'Preferences saved.',
  refund_requested: 'Asked: the platform team decides, and an accepted request puts the fee back in your credits.',
  top_up_cancelled: 'The card payment was cancelled: nothing was charged.',
  refund_accepted: 'Refund accepted: the fee is back in the expert’s credits.',
  refund_declined: 'Refund declined.',
  hold_lifted: 'Hold lifted: the escrow pays charges and lead fees again.',
  contract_recorded: 'Contract recorded, with its escrow.',
  contract_ended: 'Contract ended.',
  credited: 'Credit recorded.',
  credit_already_recorded: 'This credit was already recorded under this reference: nothing was added.',
  requested: 'Asked: the platform team is emailed and decides; you are emailed when it does.',
  request_approved: 'Approved: it is made, and its owners are emailed to collect its secret once.',
  request_declined: 'Declined: the workspace’s owners are emailed with your note.',
  source_added: 'Source added. Ask it a question in “Try your knowledge” to see what visitors get.',
  source_queued: 'Source added: it is being read and indexed, which takes a moment for a web page.',
  source_deleted: 'Source deleted: its passages no longer answer.',
  source_synced: 'Source read again.',
  gap_answered: 'Added: visitors asking this now get your answer.',
  knowledge_saved: 'Saved: the channel’s knowledge setting.',
};

/** The notice a redirect asked the page to show, if it is one of ours. */
export function noticeOf(c: Context<AppEnv>): string | undefined {
  return NOTICES[c.req.query('notice') ?? ''];
}
