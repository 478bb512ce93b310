/** /docs/retention: how long each record is kept, the archive, exports and erasure (privacy requests). */
import { blocks, table } from '../text';
import type { DocsPageSource } from './context';

export const retentionPage: DocsPageSource = {
  slug: 'retention',
  title: 'Data retention and privacy',
  summary: 'How long conversations and records are kept, the archive, exports of your data and erasing a visitor.',
  markdown: (context) =>
    blocks(
      'Every kind of record has a retention period. What must be kept is archived (compressed, in object ' +
        'storage) before it leaves the database; what is erased is erased everywhere, the archive and your exports ' +
        `included. Owners act on the console’s [Privacy page](${context.consoleUrl}/integrations/privacy) or ` +
        'through the API.',
      '## How long records are kept {#retention}',
      table(
        ['Record', 'Kept', 'Then'],
        [
          [
            'A conversation’s messages',
            '365 days after its last message (30 to 3,650: your workspace settings)',
            'Archived, then removed; the conversation’s lead and counts stay',
          ],
          ['A request’s words and attachments', '90 days', 'Archived, then cleared from the request'],
          ['Events (the webhook outbox)', '90 days', 'Archived, then removed'],
          ['Webhook deliveries and their attempts', '30 days', 'Removed'],
          ['Idempotency keys (the stored answer a repeated request gets)', '24 hours', 'Removed'],
          ['Emails sent', '90 days', 'Removed'],
          ['The audit log', '400 days', 'Archived, then removed'],
          ['An export of your data', '7 days', 'Removed (its link stops working)'],
        ],
      ),
      '## Export {#export}',
      'Export the workspace, or one contact address’s leads: a compressed NDJSON file (one JSON line per ' +
        'record: channels, conversations, messages, leads and their history), never a secret. The Privacy page ' +
        'lists each export with its size; its download link is signed for 24 hours. API: ' +
        '`POST /api/privacy/exports`.',
      '## Erasing a visitor {#erasure}',
      'Erase one conversation (on its page: “Erase this visitor’s data”), or every record of a contact ' +
        'address (the Privacy page). Within seconds, the messages, the contact details, the request’s words, ' +
        'notes and the knowledge’s gaps they asked become `[erased]`, in the database, in the archive and in the ' +
        'webhook outbox; exports made before it are deleted. A lead of theirs still open is withdrawn, and a fee ' +
        'an expert paid for it is given back. What the books rest on stays: the records’ ids, times and ' +
        'amounts. Asked again later, an erasure runs again over whatever the address has by then; the address ' +
        'itself is kept only as a hash. API: `POST /api/privacy/erasures`, and `GET /api/privacy/requests` ' +
        'lists every request with its state.',
      '## Where data lives {#where}',
      'Records are in the platform’s database and archive (Cloudflare D1 and R2); visitor contact details ' +
        'reach only the expert who claims the lead, and never an envelope, an event, a webhook or a log ' +
        '([Boundaries](/docs/boundaries)).',
    ),
};
