/** Email addresses in text: masked for logs and the email log, and parsed from `Name <address>`. */

/** Replaces every address in a text with a mask: SMTP errors quote them. */
export function scrubAddresses(text: string): string {
  return text.replace(/[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g, (address) => maskAddress(address));
}

/** `jane.doe@example.com` → `j***@e***.com`: enough to tell addresses apart in a log. */
export function maskAddress(address: string): string {
  const [local = '', domain = ''] = address.split('@');
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local.slice(0, 1)}***@${host.slice(0, 1)}***${tld}`;
}

/** `Name <address>` or a bare address, as the sender's mailbox. */
export function parseMailbox(value: string): { name?: string; email: string } {
  const match = value.match(/^\s*(.*?)\s*<([^>]+)>\s*$/);
  if (!match) return { email: value.trim() };
  const name = match[1]!.replace(/^"|"$/g, '').trim();
  return { ...(name ? { name } : {}), email: match[2]!.trim() };
}
