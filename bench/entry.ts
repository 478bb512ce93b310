/**
 * The Worker as `npm run bench` runs it: the deployed app and its entry points, plus the bench's
 * own routes (bench/routes.ts), which the deployed Worker never carries.
 */
import worker, { app } from '../worker/index';
import { benchRoutes } from './routes';

app.route('/', benchRoutes());

export { ConversationRoom, WebhookEndpointOutbox } from '../worker/index';
export default worker;
