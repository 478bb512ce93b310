/**
 * The worker suite's SMTP server: a real local sink (scripts/mail-sink.mjs) that the Worker in
 * workerd sends to over `cloudflare:sockets`, and a small HTTP view of what it received, which the
 * tests read. vitest.config.ts chose both ports and gave them to the Worker as bindings.
 */
import { createServer } from 'node:http';
import { startMailSink } from '../../scripts/mail-sink.mjs';

export default async function setup() {
  const sink = await startMailSink({ port: Number(process.env.EGW_TEST_SMTP_PORT), quiet: true });
  // `?to=address` answers only that recipient's emails: the tests poll it, and all of them grow large.
  const view = createServer(async (request, response) => {
    const to = new URL(request.url ?? '/', 'http://sink').searchParams.get('to');
    const entries = to ? sink.received.filter((entry) => entry.to.includes(to)) : sink.received;
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify(request.method === 'GET' ? await Promise.all(entries.map(sink.parse)) : []));
  });
  await new Promise((resolve) => view.listen(Number(process.env.EGW_TEST_SINK_VIEW_PORT), '127.0.0.1', resolve));
  return async () => {
    await sink.close();
    await new Promise((resolve) => view.close(resolve));
  };
}
