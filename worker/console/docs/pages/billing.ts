/**
 * /docs/billing: contracts, allowances and overage, escrows, lead fees and refunds, the ledger,
 * usage and statements. Its shell examples run against the demo key (under the demo's contract)
 * in the docs test; its JSON examples are checked against the schemas they show.
 */
import { blocks, fence, table } from '../text';
import { type DocsPageSource, exampleDomain } from './context';

/** An execution's usage lines under a contract, as the envelope carries them (the docs test checks the shape). */
export const EXAMPLE_USAGE_APPLICATIONS = [
  { meter: 'executions', quantity: 1, unit: 'execution', source: 'platform' },
  {
    meter: 'executions',
    quantity: 1,
    unit: 'execution',
    source: 'contract',
    limit: 1000,
    remaining: 0,
    charged_minor: 2,
    currency: 'EUR',
  },
  {
    meter: 'leads',
    quantity: 1,
    unit: 'lead',
    source: 'contract',
    limit: 100,
    remaining: 63,
    charged_minor: 0,
    currency: 'EUR',
  },
];

/** One line of `npm run admin -- meter-events`: an overage charge as billing systems take it. */
export const EXAMPLE_METER_EVENT = {
  event_name: 'executions.overage',
  timestamp: '2026-11-26T09:30:12.345Z',
  identifier: 'led_01m82f7a9k2c4d6e8g0h2j4k6r',
  payload: { customer: 'cus_demo', value: '1', amount_minor: '2', currency: 'EUR' },
};

export const billingPage: DocsPageSource = {
  slug: 'billing',
  title: 'Contracts and billing',
  summary: 'Contracts, allowances and overage, escrows, lead fees and refunds, the ledger, usage and statements.',
  markdown: (context) =>
    blocks(
      'Every workspace can run under a **contract**: the written agreement it was provisioned under, recorded by the ' +
        'platform’s operator. It says what is included each calendar month (UTC), what each unit past that costs, ' +
        'and ' +
        'in which currency. Money is paid into an **escrow** (a prepaid balance) outside the platform and recorded ' +
        'as a credit; each charge is taken from it as it happens, and every movement is an entry of a double-entry ' +
        '**ledger**. Nothing here talks to a card processor: the operator’s own billing system reads the ledger.',
      '## Contracts and allowances {#contracts}',
      table(
        ['Meter', 'Counts', 'Unit'],
        [
          ['`executions`', 'every completed execution (API, MCP, A2A, widget, hosted inbox)', '`execution`'],
          ['`leads`', 'every lead an execution creates', '`lead`'],
          ['`agent_calls`', 'every answer an agent or robot gives', '`agent_call`'],
        ],
      ),
      'A contract includes some units of a meter each month (`allowances`) and may price the units past them ' +
        '(`overage`, in minor units: cents). Within the allowance a unit costs nothing; past it, a meter with an ' +
        'overage price debits the escrow in the execution’s own database batch; a meter without one is **blocked**. ' +
        'A meter the contract names in neither is not metered. One contract is in force at a time; a later one takes ' +
        'over at its start. A workspace without a contract runs as before: each API key’s own monthly quota only.',
      '## What an execution tells you {#envelope}',
      'Under a contract, `usage_applications` adds a line per metered meter the execution moved (`source: ' +
        '"contract"`): the month’s allowance (`limit`), what is left of it (`remaining`), and what this execution ' +
        'was charged (`charged_minor`, with its `currency`). `exact_bridge.contract_id` and `escrow_id` name the ' +
        'contract ' +
        'in force and the escrow it charges. Send an execution and look:',
      fence(
        'sh',
        [
          `curl -s ${context.baseUrl}/api/execute`,
          '  -H "Authorization: Bearer $EGW_API_KEY"',
          '  -H "Content-Type: application/json"',
          `  -d '${JSON.stringify({
            domain: exampleDomain(context),
            execution_mode: 'sync',
            required_scopes: ['execute', 'leads:write'],
            text: 'Quote for a bookkeeping package, please.',
          })}'`,
        ].join(' \\\n'),
      ),
      'Its lines, past the allowance of executions and within that of leads:',
      fence('json', JSON.stringify(EXAMPLE_USAGE_APPLICATIONS, null, 2)),
      'When a blocked meter is used up, or the escrow lacks the funds for an overage, the execution is refused ' +
        'before it runs with **402 `entitlement_exceeded`**, naming the `meter`; nothing of it is written, so a ' +
        'retry ' +
        'after a credit is safe. A request may name the contract and escrow it expects in `exact_bridge`; naming ' +
        'another than the one in force is **422 `contract_mismatch`**:',
      fence(
        'sh problem',
        [
          `curl -s ${context.baseUrl}/api/execute`,
          '  -H "Authorization: Bearer $EGW_API_KEY"',
          '  -H "Content-Type: application/json"',
          `  -d '${JSON.stringify({
            domain: exampleDomain(context),
            execution_mode: 'sync',
            required_scopes: [],
            text: 'Which contract am I on?',
            exact_bridge: { contract_id: 'ctr_not_mine' },
          })}'`,
        ].join(' \\\n'),
      ),
      '## Lead fees and refunds {#lead-fees}',
      'A domain of the catalog may price its leads, as lead marketplaces do. An expert who claims such a lead pays ' +
        'its price from their own escrow (their **credits**), once per lead, in the claim itself: without the funds ' +
        'the claim is **402 `insufficient_credits`** and does not happen. A release or a lapsed claim refunds ' +
        'nothing, and claiming the same lead again costs nothing more. A lead that was spam or unreachable may be ' +
        'asked back once, within 7 days (`POST /api/provider/workbench/leads/{leadId}/refund-request` with ' +
        '`{"reason": "spam"}` or `"unreachable"`, or the button on the credits card of the workbench); the ' +
        'platform’s operator decides, and an accepted request puts the fee back.',
      '## The ledger {#ledger}',
      'Every credit, charge, fee and refund is an append-only ledger entry, written in the same database batch as ' +
        'what caused it, so a charge without its execution (or the reverse) cannot exist. Each change is double ' +
        'entry: the escrow against the platform’s revenue account (charges, fees, refunds) or against its funding ' +
        'account (money received); the entries of one change sum to zero. An account’s balance is its last entry’s ' +
        '`balance_after`, and an escrow’s can never go below zero, however many executions race for its last cents.',
      '## Usage, statements and notices {#usage}',
      `Owners see the month against each allowance, the balance, a daily chart and every statement on the ` +
        `[Usage page](${context.consoleUrl}/integrations/usage) of the console, and through \`GET /api/usage\` ` +
        '(`from`, `to`, `group_by=day|meter|channel|key`) and `GET /api/usage/statements` (JSON, or CSV with ' +
        '`Accept: text/csv`). When a month closes, each contract’s escrow gets one statement: opening balance, ' +
        'credits, charges per meter, fees, refunds, closing balance. Webhooks and the owners’ email carry ' +
        '`usage.threshold_reached` (80% and 100% of an allowance, once a month each), `escrow.low_balance` and ' +
        '`statement.issued`.',
      'The operator’s billing system takes the charges as meter events (`npm run admin -- meter-events ' +
        '--since=…` prints one JSON line per charge; `identifier` makes a resend harmless, `customer` is the ' +
        'contract’s reference):',
      fence('json', JSON.stringify(EXAMPLE_METER_EVENT, null, 2)),
    ),
};
