// `npm run dev`: .dev.vars from the example if missing, local migrations, the demo seed,
// then `wrangler dev` on 127.0.0.1:8787, reached as http://localhost:8787 (passkeys refuse an IP
// address). Extra arguments (`npm run dev -- --port 9000`) pass through.
import { spawn } from 'node:child_process';
import { startCronTicker, wranglerCrons } from './cron.mjs';
import { devArguments, flagValue } from './dev-args.mjs';
import { choosePorts } from './dev-ports.mjs';
import { claimState, helperPort } from './dev-state.mjs';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, WRANGLER, readVars } from './lib.mjs';
import { buildWidget, prepareLocalDatabase } from './local-worker.mjs';
import { indexDocsAsKnowledge } from './docs-knowledge.mjs';
import { startMailSink } from './mail-sink.mjs';
import { startReferenceAgent } from './reference-agent.mjs';
import { startStripeStandIn } from './stripe-stand-in.mjs';

const devVarsPath = join(ROOT, '.dev.vars');
if (!existsSync(devVarsPath)) {
  copyFileSync(join(ROOT, '.dev.vars.example'), devVarsPath);
  console.log('Created .dev.vars from .dev.vars.example (local secrets; git ignores it).');
}
// Settings added to the example since this .dev.vars was made are appended, with their comments.
const example = readVars(join(ROOT, '.dev.vars.example'));
const missing = Object.keys(example).filter((name) => !(name in readVars(devVarsPath)));
if (missing.length > 0) {
  appendFileSync(
    devVarsPath,
    `\n# Added by npm run dev from ` +
      `.dev.vars.example\n${missing.map((name) => `${name}=${example[name]}`).join('\n')}\n`,
  );
  console.log(`Added ${missing.join(', ')} to .dev.vars (new in .dev.vars.example).`);
}
const vars = readVars(devVarsPath);

const passThrough = process.argv.slice(2);
const persistIndex = passThrough.indexOf('--persist-to');

// One run per local database: a second one over the same state stops here, naming the first.
const { ip, port, base: plannedBase } = devArguments(passThrough);
const stateDir = persistIndex >= 0 ? passThrough[persistIndex + 1] : join(ROOT, '.wrangler', 'state');
const claimed = claimState(stateDir, { url: plannedBase, pid: process.pid });
if (claimed.problem) {
  console.error(`\n${claimed.problem}\n`);
  process.exit(1);
}
// The ports next: a taken one must not cost a build and a seed before it is found. A helper's port
// set in the environment (`SMTP_PORT=2601 npm run dev`) wins over .dev.vars.
const configured = {
  agent: helperPort('REFERENCE_AGENT_PORT', vars, 8788),
  mail: helperPort('SMTP_PORT', vars, 2525),
};
const ports = await choosePorts({
  worker: Number(port),
  ip,
  agent: configured.agent,
  mail: vars.LOCAL_MAIL_SINK === 'true' ? configured.mail : null,
  inspector: flagValue(passThrough, '--inspector-port') === undefined ? 9229 : null,
});
if (ports.problem) {
  claimed.release();
  console.error(`\n${ports.problem}\n`);
  process.exit(1);
}

console.log('Building the widget…');
await buildWidget();
const referenceAgent = { port: ports.agent, secret: vars.REFERENCE_AGENT_SECRET };
console.log('Applying local D1 migrations and seeding the demo tenant…');
await prepareLocalDatabase({
  persistTo: persistIndex >= 0 ? passThrough[persistIndex + 1] : undefined,
  demoApiKey: vars.DEMO_API_KEY ?? '',
  demoPassword: vars.DEMO_PASSWORD,
  pepper: vars.PASSWORD_PEPPER,
  secretsKey: vars.SECRETS_KEY,
  referenceAgent,
});
// The reference agent (local only, never deployed): the demo's agent for the faq domain.
const agent = await startReferenceAgent(referenceAgent);
// The local mail sink: every email the Worker sends lands in .wrangler/mail/ (LOCAL_MAIL_SINK=false: none).
const mailDir = join(ROOT, '.wrangler', 'mail');
const mailSink = ports.mail !== null ? await startMailSink({ port: ports.mail, dir: mailDir }) : null;

const { args: chosenArgs, base } = devArguments(passThrough);
// The local stand-in for Stripe (card top-ups), unless a real test key is in use (LOCAL_STRIPE_STAND_IN=false).
const stripeStandIn =
  vars.LOCAL_STRIPE_STAND_IN === 'true' && vars.STRIPE_SECRET_KEY
    ? await startStripeStandIn({
        port: Number(vars.STRIPE_STAND_IN_PORT ?? 8789),
        webhookUrl: `${base}/api/payments/stripe/webhook`,
        webhookSecret: vars.STRIPE_WEBHOOK_SECRET ?? '',
        quiet: false,
      }).catch(() =>
        // Its port is taken: any free one (the Worker is told which).
        startStripeStandIn({
          webhookUrl: `${base}/api/payments/stripe/webhook`,
          webhookSecret: vars.STRIPE_WEBHOOK_SECRET ?? '',
          quiet: false,
        }),
      )
    : null;
// A helper that moved: the Worker is told where (its SMTP port), and wrangler where to inspect.
const devArgs = [
  ...chosenArgs,
  ...(mailSink && String(mailSink.port) !== String(vars.SMTP_PORT ?? 2525)
    ? ['--var', `SMTP_PORT:${mailSink.port}`]
    : !mailSink && String(configured.mail) !== String(vars.SMTP_PORT ?? 2525)
      ? ['--var', `SMTP_PORT:${configured.mail}`]
      : []),
  ...(ports.inspector !== null && ports.inspector !== 9229 ? ['--inspector-port', String(ports.inspector)] : []),
  ...(stripeStandIn ? ['--var', `STRIPE_API_URL:${stripeStandIn.url}`] : []),
];
const mailLine = mailSink
  ? `a local SMTP sink on 127.0.0.1:${mailSink.port} keeps every email in .wrangler/mail/`
  : `sent to ${vars.SMTP_HOST ? `${vars.SMTP_HOST}:${vars.SMTP_PORT}` : '(no SMTP_HOST: recorded as skipped)'}`;
const tryBody = JSON.stringify({
  domain: 'consultation',
  execution_mode: 'sync',
  required_scopes: ['execute', 'leads:write'],
  text: 'I need help choosing a CRM.',
});
console.log(
  `
Demo tenant ready (local only):
  API key  ${vars.DEMO_API_KEY}   (DEMO_API_KEY in .dev.vars)
  Admin    ADMIN_TOKEN in .dev.vars (for npm run admin)
  Front    ${base}/  (the platform's own front page, with its widget: FRONT_DOOR_CHANNEL)
  Docs     ${base}/docs
  Console  ${base}/auth/sign-in  (password: DEMO_PASSWORD in .dev.vars) as
           owner@demo.test    site owner: channels, widget, team, recent intake
           expert@demo.test   active expert: the workbench (every consultation)
           payroll@demo.test  active expert for payroll and VAT questions only
           agent@demo.test    the reference agent's provider account: operations and health
           admin@demo.test    platform admin: provider review at ${base}/admin/providers
                              (two-step sign-in: npm run demo:code prints the code)
  Agent    ${agent.url}  (the reference A2A agent, answering the faq domain; card at ${agent.cardUrl})
  Widget   ${base}/demo  (a pretend customer site: ask "What are your opening hours?", then "Talk to an expert")
  Inbox    ${base}/widget/ch_demo  (the same channel as a hosted page)

  Mail     ${mailLine}
  Cards    ${
    stripeStandIn
      ? `a local stand-in for Stripe on ${stripeStandIn.url} (top up on the Usage page: no card asked)`
      : vars.STRIPE_SECRET_KEY
        ? 'Stripe itself (STRIPE_SECRET_KEY): forward its webhooks with `stripe listen`'
        : 'none (no STRIPE_SECRET_KEY): the console says how to pay by bank transfer'
  }

  Ports    platform ${port} · reference agent ${ports.agent} · mail ${mailSink?.port ?? configured.mail}` +
    ` · inspector ${ports.inspector ?? flagValue(passThrough, '--inspector-port')}` +
    `${ports.notes.length > 0 ? `\n           ${ports.notes.join('\n           ')}` : ''}
  Passkeys work at ${base} (a host name); browsers refuse them on an IP address such as 127.0.0.1.
  Crons    ${wranglerCrons().join(', ')} fire on their schedule (scripts/cron.mjs); fire one by hand:
           curl "${base}/__scheduled?cron=*+*+*+*+*"

Try it:
  curl -s ${base}/api/execute -H "Authorization: Bearer ${vars.DEMO_API_KEY}" -H "Content-Type: application/json" \\
    -d '${tryBody}'
`,
);

// Where this run serves, for `npm run admin` (its default address) while it runs.
const devUrlFile = join(ROOT, '.wrangler', 'dev-url');
mkdirSync(join(ROOT, '.wrangler'), { recursive: true });
writeFileSync(devUrlFile, `${base}\n`);
const child = spawn(process.execPath, [WRANGLER, ...devArgs], { cwd: ROOT, stdio: 'inherit' });
// The front door answers from the docs: once the Worker answers, its /docs become the demo's knowledge.
indexDocsAsKnowledge(base, vars.DEMO_API_KEY ?? '').then(
  ({ pages, added }) => console.log(`Knowledge: ${added} of the ${pages} docs pages added to the demo's knowledge.`),
  (error) => console.warn(`Knowledge: the docs were not indexed (${error.message}).`),
);
// Every cron of wrangler.toml fires on its schedule, as in production (wrangler dev fires none).
const stopCrons = startCronTicker(base);
const stop = (signal) => {
  stopCrons();
  rmSync(devUrlFile, { force: true });
  claimed.release();
  child.kill(signal);
  void agent.close();
  void mailSink?.close();
  void stripeStandIn?.close();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
child.on('exit', (code) => {
  claimed.release();
  agent.close().finally(() => process.exit(code ?? 0));
});
