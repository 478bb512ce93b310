/**
 * Channels (docs/design/channels-and-widget.md): a workspace's demand-side entry points, their widget settings,
 * the public widget configuration, and the gate every public channel route passes.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
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
  publicWidgetConfigSchema,
  updateChannelSchema,
  widgetConfigPatchSchema,
} from './schemas';
export {
  type ActiveChannel,
  findActiveChannel,
  findActiveChannelForIntake,
  forgetChannel,
  reverifyCachedChannel,
} from './active';
export {
  asksForContact,
  type ChannelRow,
  createChannel,
  describeChannel,
  getChannel,
  isOriginAllowed,
  listChannels,
  knowledgeOf,
  routingOf,
  snippetFor,
  updateChannel,
  widgetConfigOf,
} from './service';
export { copyIn, hostedInboxUrl, publicWidgetConfig, visitorLanguage } from './public-config';
