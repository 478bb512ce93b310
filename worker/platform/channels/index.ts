/**
 * Channels (PRODUCT.md section 4): a workspace's demand-side entry points, their widget settings,
 * the public widget configuration, and the gate every public channel route passes.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { admittedChannel, channelGate, PUBLIC_CHANNEL_PATHS, publicWidgetRoutes } from './public-routes';
export { channelCspFindings, channelRoutes } from './routes';
export type { CspFinding } from './csp-check';
export {
  type ChannelView,
  createChannelSchema,
  type IntakeRequest,
  intakeRequestSchema,
  type IntakeResponse,
  intakeResponseSchema,
  type IntakeTrigger,
  type PublicWidgetConfig,
  updateChannelSchema,
  widgetConfigPatchSchema,
} from './schemas';
export {
  type ActiveChannel,
  asksForContact,
  type ChannelRow,
  createChannel,
  describeChannel,
  findActiveChannel,
  forgetChannel,
  getChannel,
  hostedInboxUrl,
  listChannels,
  publicWidgetConfig,
  routingOf,
  snippetFor,
  updateChannel,
  widgetConfigOf,
} from './service';
