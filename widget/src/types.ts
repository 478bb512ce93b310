/**
 * The shapes the widget receives from the public API. They are the worker's own zod schemas'
 * types (imported as types only, so no worker code reaches the bundle), never written twice.
 */
import type { ProblemBody } from '../../worker/lib/errors';
import type { Attribution } from '../../worker/platform/attribution';
import type { ServerFrame } from '../../worker/live/frames';
import type { IntakeResponse, PublicWidgetConfig } from '../../worker/platform/channels/schemas';
import type { MessageView, VisitorThread } from '../../worker/platform/conversations/schemas';

export type { Attribution, MessageView, ServerFrame, VisitorThread };
/** What intake answers. */
export type IntakeAnswer = IntakeResponse;
/** An RFC 9457 problem, as every error of the API is. */
export type Problem = ProblemBody;
export type WidgetConfig = PublicWidgetConfig;
export type FieldRule = WidgetConfig['lead_capture']['name'];

/** What the loader hands the panel. */
export interface PanelOptions {
  config: WidgetConfig;
  attribution: Attribution;
  /**
   * `embedded`: floating over a customer page; `page`: the hosted inbox, full page;
   * `preview`: inside the console's widget editor, where nothing is sent.
   */
  mode: 'embedded' | 'page' | 'preview';
  onClose?: () => void;
}

export interface PanelController {
  focus(): void;
  /** Re-renders with new options (the console preview, as the owner edits). */
  update(options: PanelOptions): void;
}

declare global {
  interface Window {
    /** Set by panel.js for the loader. */
    egwPanel?: { mount(container: HTMLElement, root: ShadowRoot | Document, options: PanelOptions): PanelController };
  }
}
