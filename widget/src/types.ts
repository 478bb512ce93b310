/** The shapes the widget receives from the public API (see worker/platform/channels/schemas.ts). */
export type FieldRule = 'off' | 'optional' | 'required';

export interface WidgetConfig {
  channel_key: string;
  brand: { name: string; logo_url: string | null };
  colors: { primary: string; on_primary: string };
  position: { side: 'bottom-right' | 'bottom-left'; offset_x: number; offset_y: number };
  copy: {
    title: string;
    greeting: string;
    placeholder: string;
    launcher_label: string;
    success_message: string;
    privacy_note: string;
  };
  lead_capture: { name: FieldRule; email: FieldRule; phone: FieldRule };
  provider_entry: { enabled: boolean; label: string; url: string };
  hosted_inbox_url: string;
  intake_url: string;
}

export interface Attribution {
  source_site?: string;
  page_url?: string;
  referrer?: string;
  campaign?: Record<string, string>;
}

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
