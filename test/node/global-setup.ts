import type { TestProject } from 'vitest/node';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { startLocalWorker } from '../../scripts/local-worker.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    workerUrl: string;
    demoApiKey: string;
    adminToken: string;
    /** Where the Worker's local SMTP sink keeps each email it received, as an .eml file. */
    mailDir: string;
  }
}

/** One real Worker (wrangler dev, local D1, migrations and demo seed) for all Node tests. */
export default async function setup(project: TestProject) {
  // A reply unread for 2 s goes by email here (2 minutes in production), and a minute of the lead
  // timers lasts a second, so that tests need not wait.
  const worker = await startLocalWorker({
    // The app with the test's clock route (test/worker-entry.ts): minutes pass without waiting.
    entry: 'test/worker-entry.ts',
    // Not `wrangler dev`: nothing a parallel step writes (a build, a bundle) restarts it mid-request.
    inspector: false,
    // The front door answers from the docs, as `npm run dev` sets it up.
    docsKnowledge: true,
    vars: { EMAIL_UNREAD_AFTER_SECONDS: '2', LEAD_MINUTE_SECONDS: '1', FRONT_DOOR_CHANNEL: 'ch_demo' },
  });
  project.provide('workerUrl', worker.url);
  project.provide('demoApiKey', worker.demoApiKey);
  project.provide('adminToken', worker.adminToken);
  project.provide('mailDir', worker.mailDir);
  return () => worker.stop();
}
