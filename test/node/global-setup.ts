import type { TestProject } from 'vitest/node';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { startLocalWorker } from '../../scripts/local-worker.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    workerUrl: string;
    demoApiKey: string;
    adminToken: string;
  }
}

/** One real Worker (wrangler dev, local D1, migrations and demo seed) for all Node tests. */
export default async function setup(project: TestProject) {
  const worker = await startLocalWorker();
  project.provide('workerUrl', worker.url);
  project.provide('demoApiKey', worker.demoApiKey);
  project.provide('adminToken', worker.adminToken);
  return () => worker.stop();
}
