/**
 * The Worker as the Node tests run it: the deployed app, plus one route the deployed Worker never
 * carries, which moves the Worker's clock (worker/lib/clock.ts), so a test lets minutes pass
 * without waiting for them: `POST /__test/clock?advance_ms=N`.
 */
import worker, { app } from '../worker/index';
import { clock, moveClockForTests } from '../worker/lib/clock';

app.post('/__test/clock', (c) => {
  const advance = Number(c.req.query('advance_ms') ?? '0');
  if (!Number.isInteger(advance) || advance < 0 || advance > 31 * 24 * 3_600_000)
    return c.json({ error: 'advance_ms: a whole number of milliseconds, up to 31 days' }, 400);
  moveClockForTests(advance);
  return c.json({ now: clock.now() });
});

export { ConversationRoom, WebhookEndpointOutbox } from '../worker/index';
export default worker;
