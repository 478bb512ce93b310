/** @jsxImportSource hono/jsx */
/**
 * An agent's or robot's last 24 hours (the health view of docs/design/agents-and-robots.md), as its provider
 * sees it on /provider/operations and a platform admin on the review page.
 */
import type { AgentHealth } from '../../platform/agents';
import { DataTable, when } from './layout';

const OUTCOME_LABELS: Record<string, string> = {
  success: 'answered',
  timeout: 'timed out',
  http_error: 'HTTP error',
  invalid_answer: 'invalid answer',
  rpc_error: 'JSON-RPC error',
  not_completed: 'task not completed',
  declined: 'declined',
  network_error: 'connection failed',
  refused: 'refused by the egress guard',
  circuit_open: 'skipped (breaker open)',
};

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`);
const millis = (value: number | null) =>
  value === null ? '—' : value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value} ms`;

/** Calls, success rate, latency and the circuit breaker. */
export function AgentHealthSummary({ health }: { health: AgentHealth }) {
  return (
    <section class="card" aria-labelledby="health-title">
      <h2 id="health-title">Last 24 hours</h2>
      <DataTable
        headless
        rows={[
          ['Calls', String(health.calls)],
          ['Success rate', percent(health.success_rate)],
          ['Latency p50', millis(health.p50_ms)],
          ['Latency p95', millis(health.p95_ms)],
          [
            'Circuit breaker',
            health.circuit.state === 'open'
              ? `open until ${when(health.circuit.open_until)}`
              : `closed (${health.circuit.consecutive_failures} failures in a row)`,
          ],
          ['Skipped while open', String(health.skipped)],
        ]}
        columns={[
          { header: 'Measure', rowHeader: true, cell: ([label]) => label },
          { header: 'Value', cell: ([, shown]) => shown },
        ]}
      />
    </section>
  );
}

/** The last failed or skipped calls, newest first, each with its execution. */
export function AgentLastErrors({ health }: { health: AgentHealth }) {
  return (
    <section class="card" aria-labelledby="errors-title">
      <h2 id="errors-title">Last errors</h2>
      {health.last_errors.length === 0 ? (
        <p class="muted">No errors in the last 24 hours.</p>
      ) : (
        <DataTable
          rows={health.last_errors}
          columns={[
            { header: 'When', cell: (entry) => when(entry.at) },
            { header: 'Outcome', cell: (entry) => OUTCOME_LABELS[entry.outcome] ?? entry.outcome },
            { header: 'HTTP', cell: (entry) => (entry.http_status === null ? '—' : String(entry.http_status)) },
            { header: 'Detail', class: 'message', cell: (entry) => entry.error ?? '—' },
            { header: 'Execution', cell: (entry) => <code>{entry.execution_id}</code> },
          ]}
        />
      )}
    </section>
  );
}
