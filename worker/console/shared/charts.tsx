/** @jsxImportSource hono/jsx */
/**
 * Charts drawn on the server as SVG (no script): the scales come from d3-scale and the lines from
 * d3-shape. Each chart has a title and a description that screen readers read, and its numbers
 * follow as a table, for reading and copying, with a CSV link when the page offers one.
 */
import { type ScaleLinear, scaleBand, scaleLinear } from 'd3-scale';
import { line, stack } from 'd3-shape';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { DataTable } from './layout';
import { csvDocument } from '../../lib/csv';

/** The axes' drawing units: a card's width is about this on a desktop (so 11 px stays 11 px). */
const WIDTH = 960;
const HEIGHT = 300;
const MARGIN = { top: 12, right: 12, bottom: 44, left: 60 };
/** The rows' drawing (a funnel) sits in a half-width card. */
const ROWS_WIDTH = 640;
const ROW_HEIGHT = 72;

/** One series of a chart: its name and one value per label. */
export interface Series {
  name: string;
  values: number[];
  /** A CSS class for its colour (styles.ts: `.series-1` … `.series-4`). */
  tone?: 1 | 2 | 3 | 4;
}

export interface ChartProps {
  /** The chart's id: its title and description are referred to by it. */
  id: string;
  title: string;
  /** What the chart shows, in a sentence a screen reader reads instead of the picture. */
  description: string;
  /** One per value: days (`2026-11-26`) or names. */
  labels: string[];
  series: Series[];
  /** Bars side by side, bars stacked on each other (parts of a whole), lines, or one bar per row (a funnel). */
  kind: 'bars' | 'stacked' | 'lines' | 'rows';
  /** A link to the same numbers as CSV. */
  csvHref?: string;
  /** How the table's first column is titled. */
  labelHeader?: string;
  /** Today's date (`2026-11-26`): its bar is labelled "Today" whenever it is in the range. */
  today?: string;
}

/** A day label as the axis shows it: `26 Nov`. */
const shortDay = (label: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(label)
    ? new Date(`${label}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })
    : label;

/** One bar per label, its name above it and its value at its end: long names read whole on a phone. */
function RowsDrawing(props: ChartProps) {
  const values = props.series[0]?.values ?? [];
  const rowHeight = ROW_HEIGHT;
  const height = props.labels.length * rowHeight;
  const x = scaleLinear()
    .domain([0, Math.max(1, ...values)])
    .range([0, ROWS_WIDTH - 90]);
  return (
    <svg
      class="rows"
      viewBox={`0 0 ${ROWS_WIDTH} ${height}`}
      role="img"
      aria-labelledby={`${props.id}-chart-title ${props.id}-chart-desc`}
      preserveAspectRatio="xMidYMid meet"
    >
      <title id={`${props.id}-chart-title`}>{props.title}</title>
      <desc id={`${props.id}-chart-desc`}>{props.description}</desc>
      {props.labels.map((label, index) => (
        <g class="row">
          <text class="row-label" x={0} y={index * rowHeight + 26}>
            {label}
          </text>
          <rect
            class="series-1"
            x={0}
            y={index * rowHeight + 40}
            width={Math.max(2, x(values[index] ?? 0))}
            height={20}
          />
          <text class="row-value" x={Math.max(2, x(values[index] ?? 0)) + 8} y={index * rowHeight + 58}>
            {(values[index] ?? 0).toLocaleString('en-GB')}
          </text>
        </g>
      ))}
    </svg>
  );
}

/** A chart, with its numbers as a table below it. */
export function Chart(props: ChartProps) {
  const drawing = props.kind === 'rows' ? <RowsDrawing {...props} /> : <AxesDrawing {...props} />;
  return <ChartFrame {...props} drawing={drawing} />;
}

/** The most ticks on the value axis: on a phone the drawing is a third of its size, and more touch. */
const MAX_TICKS = 5;

/**
 * Rounds the value axis out to its ticks and answers them: whole numbers, at most MAX_TICKS, the
 * top one at the top. d3's count is only a hint (4 asks for 0, 2, 4 … 12 on a scale to 12: seven
 * labels, touching on a phone), so fewer are asked for until few enough come.
 */
export function niceAxis(scale: ScaleLinear<number, number>): number[] {
  for (let count = 4; count >= 1; count--) {
    const rounded = scale.copy().nice(count);
    const ticks = rounded.ticks(count).filter(Number.isInteger);
    if (ticks.length <= MAX_TICKS || count === 1) {
      scale.domain(rounded.domain());
      return ticks;
    }
  }
  return [];
}

/** Bars, stacked bars or lines over an axis of labels (days), with whole ticks. */
function AxesDrawing(props: ChartProps) {
  const { labels, series } = props;
  // Stacked: each label's values sum; its layers come from d3-shape's stack, bottom first.
  const layers =
    props.kind === 'stacked'
      ? stack<number[]>()
          .keys(series.map((_, index) => String(index)))
          .value((row, key) => row[Number(key)] ?? 0)(
          labels.map((_, index) => series.map((entry) => entry.values[index] ?? 0)),
        )
      : [];
  const tops = props.kind === 'stacked' ? labels.map((_, index) => layers.at(-1)?.[index]?.[1] ?? 0) : [];
  // Counts: whole ticks only, so a small range reads 0 to 4, never 0.2.
  const max = Math.max(4, ...(props.kind === 'stacked' ? tops : series.flatMap((entry) => entry.values)));
  const y = scaleLinear()
    .domain([0, max])
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const ticks = niceAxis(y);
  const x = scaleBand<number>()
    .domain(labels.map((_, index) => index))
    .range([MARGIN.left, WIDTH - MARGIN.right])
    .paddingInner(0.2)
    .paddingOuter(0.1);
  const band = x.bandwidth();
  const barWidth = band / Math.max(1, series.length);
  // At most 6 labels on the axis (a phone shows them large), evenly spread, and always the last one
  // (today's, as a rule), dropping the spread label just before it when they would touch.
  const step = Math.max(1, Math.ceil(labels.length / 6));
  const last = labels.length - 1;
  const labelled = (index: number) =>
    index === last || (index % step === 0 && (last - index >= step / 2 || index === 0));
  // The first and last labels keep inside the drawing (a long "Today" under a narrow bar).
  const edge = (index: number) =>
    labels.length > 1 && index === last ? 'end' : labels.length > 1 && index === 0 ? 'start' : 'middle';
  const draw = line<number>()
    .x((_, index) => (x(index) ?? 0) + band / 2)
    .y((value) => y(value));
  return (
    <svg
      class="axes"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-labelledby={`${props.id}-chart-title ${props.id}-chart-desc`}
      preserveAspectRatio="xMidYMid meet"
    >
      <title id={`${props.id}-chart-title`}>{props.title}</title>
      <desc id={`${props.id}-chart-desc`}>{props.description}</desc>
      {ticks.map((tick) => (
        <g class="tick">
          <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} />
          <text x={MARGIN.left - 6} y={y(tick)} dy="0.32em" text-anchor="end">
            {tick.toLocaleString('en-GB')}
          </text>
        </g>
      ))}
      {props.kind === 'stacked'
        ? layers.map((layer, seriesIndex) =>
            layer.map(([low, high], index) => (
              <rect
                class={`series-${series[seriesIndex]?.tone ?? seriesIndex + 1}`}
                x={x(index) ?? 0}
                y={y(high)}
                width={Math.max(1, band - 1)}
                height={Math.max(0, y(low) - y(high))}
              />
            )),
          )
        : null}
      {props.kind === 'bars'
        ? series.map((entry, seriesIndex) =>
            entry.values.map((value, index) => (
              <rect
                class={`series-${entry.tone ?? seriesIndex + 1}`}
                x={(x(index) ?? 0) + seriesIndex * barWidth}
                y={y(value)}
                width={Math.max(1, barWidth - 1)}
                height={Math.max(0, y(0) - y(value))}
              />
            )),
          )
        : null}
      {props.kind === 'lines'
        ? series.map((entry, seriesIndex) => (
            <path class={`line series-${entry.tone ?? seriesIndex + 1}`} d={draw(entry.values) ?? ''} />
          ))
        : null}
      {labels.map((label, index) =>
        labelled(index) ? (
          <text
            class={label === props.today ? 'axis-label today' : 'axis-label'}
            x={(x(index) ?? 0) + (edge(index) === 'end' ? band : edge(index) === 'start' ? 0 : band / 2)}
            y={HEIGHT - 10}
            text-anchor={edge(index)}
          >
            {label === props.today ? 'Today' : shortDay(label)}
          </text>
        ) : null,
      )}
    </svg>
  );
}

/** The frame of a drawing: its caption, its legend, and its numbers as a table (and CSV). */
function ChartFrame(props: ChartProps & { drawing: JSX.Element }) {
  const { labels, series } = props;
  return (
    <figure class="chart" aria-labelledby={`${props.id}-chart-caption`}>
      <figcaption id={`${props.id}-chart-caption`} class="chart-title">
        {props.title}
      </figcaption>
      {props.drawing}
      {series.length > 1 ? (
        <ul class="legend">
          {series.map((entry, index) => (
            <li>
              <span class={`swatch series-${entry.tone ?? index + 1}`} aria-hidden="true"></span>
              {entry.name}
            </li>
          ))}
        </ul>
      ) : null}
      <details class="chart-numbers">
        <summary>The numbers</summary>
        <DataTable
          compact
          rows={labels.map((label, index) => ({ label, index }))}
          columns={[
            { header: props.labelHeader ?? 'Day', rowHeader: true, cell: (row) => row.label },
            ...series.map((entry) => ({
              header: entry.name,
              cell: (row: { index: number }) => (entry.values[row.index] ?? 0).toLocaleString('en-GB'),
            })),
          ]}
        />
        {props.csvHref ? (
          <p>
            <a href={props.csvHref} download>
              Download as CSV
            </a>
          </p>
        ) : null}
      </details>
    </figure>
  );
}

/** The CSV of a chart's numbers: a header, then one line per label. */
export function chartCsv(labelHeader: string, labels: string[], series: Series[]): string {
  return csvDocument(
    [labelHeader, ...series.map((entry) => entry.name)],
    labels.map((label, index) => [label, ...series.map((entry) => entry.values[index] ?? 0)]),
  );
}
