/** @jsxImportSource hono/jsx */
/**
 * The docs' figures: inline SVG (no image request, styled by site.css), each with the text that
 * stands in for it in the Markdown copy.
 */
import type { FC } from 'hono/jsx';
import type { DocsContext } from './pages';

interface BoxProps {
  x: number;
  y: number;
  width: number;
  title: string;
  lines: string[];
  tone?: 'demand' | 'core' | 'supply' | 'edge';
}

const Box: FC<BoxProps> = ({ x, y, width, title, lines, tone = 'core' }) => (
  <g class={`box ${tone}`}>
    <rect x={x} y={y} width={width} height={30 + lines.length * 18} rx="10" />
    <text x={x + 12} y={y + 21} class="title">
      {title}
    </text>
    {lines.map((line, index) => (
      <text x={x + 12} y={y + 41 + index * 18}>
        {line}
      </text>
    ))}
  </g>
);

const Arrow: FC<{ d: string; head: string }> = ({ d, head }) => (
  <path d={d} class="flow" marker-end={`url(#${head})`} />
);

const ArrowHead: FC<{ id: string }> = ({ id }) => (
  <defs>
    <marker id={id} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
      <path d="M0,0 L10,5 L0,10 z" />
    </marker>
  </defs>
);

/** The same figure for a phone: the layers one under the other, so its text stays readable. */
const LayersTall: FC = () => (
  <svg viewBox="0 0 340 620" class="tall" role="img" aria-label="The layers, one under the other">
    <ArrowHead id="arrow-tall" />
    <Box
      x={10}
      y={10}
      width={320}
      tone="demand"
      title="Hosted inbox · widget · API, MCP, A2A"
      lines={['where a demand comes in']}
    />
    <Box
      x={10}
      y={110}
      width={320}
      title="Platform core"
      lines={['identity, workspaces, keys', 'admission: scopes, limits']}
    />
    <Box x={10} y={230} width={320} title="Brain core" lines={['judgement, risk control, routing, memory']} />
    <Box
      x={10}
      y={330}
      width={320}
      tone="supply"
      title="Agents and robots"
      lines={['answer at once (A2A, signed HTTPS)']}
    />
    <Box x={10} y={420} width={320} tone="supply" title="Experts" lines={['claim leads, reply live or by email']} />
    <Box x={10} y={510} width={320} tone="edge" title="Your systems" lines={['signed webhooks']} />
    <Arrow head="arrow-tall" d="M170,58 L170,108" />
    <Arrow head="arrow-tall" d="M170,176 L170,228" />
    <Arrow head="arrow-tall" d="M170,278 L170,328" />
    <Arrow head="arrow-tall" d="M320,278 C345,300 345,440 332,445" />
    <Arrow head="arrow-tall" d="M20,278 C-5,320 -5,520 8,530" />
    <text x={10} y={610} class="muted-text">
      Around them: docs, sign-in, console, front page.
    </text>
  </svg>
);

/** the layers (docs/design/README.md) and the way a demand flows through them. */
export const LayersFigure: FC = () => (
  <figure class="diagram">
    <LayersTall />
    <svg viewBox="0 0 760 390" class="wide" role="img" aria-labelledby="layers-title layers-desc">
      <title id="layers-title">The platform's layers and the flow of a demand</title>
      <desc id="layers-desc">{LAYERS_TEXT}</desc>
      <ArrowHead id="arrow-wide" />
      <Box x={10} y={10} width={220} tone="demand" title="Hosted inbox" lines={['/widget/{channel_key}']} />
      <Box x={10} y={80} width={220} tone="demand" title="Embedded widget" lines={['one <script> on your site']} />
      <Box x={10} y={150} width={220} tone="demand" title="API, MCP, A2A" lines={['POST /api/execute', 'bearer key']} />
      <Box
        x={270}
        y={60}
        width={220}
        title="Platform core"
        lines={['identity, workspaces, keys', 'admission: scopes, limits']}
      />
      <Box x={270} y={170} width={220} title="Brain core" lines={['judgement, risk control', 'routing, memory']} />
      <Box
        x={530}
        y={10}
        width={220}
        tone="supply"
        title="Agents and robots"
        lines={['A2A or signed HTTPS', 'answer at once']}
      />
      <Box
        x={530}
        y={120}
        width={220}
        tone="supply"
        title="Experts"
        lines={['claim leads in the', 'workbench, reply live']}
      />
      <Box
        x={530}
        y={230}
        width={220}
        tone="edge"
        title="Your systems"
        lines={['signed webhooks', 'lead.created, …']}
      />
      <Box x={10} y={300} width={220} tone="edge" title="Documentation site" lines={['explains, takes no action']} />
      <Box
        x={270}
        y={300}
        width={220}
        tone="edge"
        title="Auth entry and console"
        lines={['sign-up, onboarding,', 'workbench, operations']}
      />
      <Box x={530} y={330} width={220} tone="edge" title="Front page" lines={['consultation entry']} />
      <Arrow head="arrow-wide" d="M230,35 C250,35 250,90 268,95" />
      <Arrow head="arrow-wide" d="M230,105 L268,105" />
      <Arrow head="arrow-wide" d="M230,185 C250,185 250,120 268,115" />
      <Arrow head="arrow-wide" d="M380,128 L380,168" />
      <Arrow head="arrow-wide" d="M490,190 C510,190 510,45 528,45" />
      <Arrow head="arrow-wide" d="M490,205 C510,205 510,155 528,155" />
      <Arrow head="arrow-wide" d="M490,220 C510,220 510,260 528,262" />
      <Arrow head="arrow-wide" d="M380,338 L380,266" />
    </svg>
    <figcaption>{LAYERS_CAPTION}</figcaption>
  </figure>
);

const LAYERS_CAPTION =
  'A demand enters through the hosted inbox, the widget or the API; the platform core admits it; the brain ' +
  'judges and routes it to an agent or robot that answers at once, or to experts as a lead; every change is ' +
  'signed and sent to your systems.';

const LAYERS_TEXT =
  'Demand side: hosted inbox, embedded widget, and API (also MCP and A2A). Platform core: identity, workspaces, ' +
  'API keys and admission (scopes, limits). Brain core: judgement, risk control, routing and memory. Supply side: ' +
  'agents and robots answer synchronously; experts claim leads in the workbench and reply live. Webhooks tell ' +
  'your systems. Around them: the documentation site (explains, takes no action), the auth entry and console, ' +
  "and the platform's own front page.";

/**
 * The platform's own widget, live on the page, with buttons that call `egw()` as a host page would
 * (bound by /embed/docs.js). Its loader is the snippet the page shows.
 */
const LiveWidget: FC<{ context: DocsContext }> = ({ context }) =>
  context.channelKey ? (
    <div class="live-widget">
      <p class="muted">Live on this page:</p>
      <button type="button" class="button" data-egw="open" hidden>
        egw('open')
      </button>
      <button type="button" class="button ghost" data-egw="close" hidden>
        egw('close')
      </button>
      <script
        async
        src={`${context.consoleUrl}/embed/widget.js`}
        data-channel-id={context.channelKey}
        data-console-origin={context.consoleUrl}
      ></script>
    </div>
  ) : null;

/** The figures by the name a page's `::name` line uses, with the Markdown copy's text for each. */
export const FIGURES: Record<string, { Figure: FC<{ context: DocsContext }>; text: string }> = {
  layers: { Figure: LayersFigure, text: `Figure, the layers: ${LAYERS_TEXT}` },
  'live-widget': { Figure: LiveWidget, text: '(The HTML page runs this widget live, with buttons that call egw().)' },
};
