/** @jsxImportSource hono/jsx */
/** The expert's own numbers on the workbench (docs/design/insights.md): their last 30 days. */
import type { ExpertNumbers } from '../../platform/insights';
import { spokenDuration } from '../shared/duration';
import { DataTable } from '../shared/layout';
import { formatCount, formatMoney } from '../shared/money';

/** Claims, time to first reply, outcomes and fees over the last 30 days. */
export function NumbersCard({ numbers, currency }: { numbers: ExpertNumbers; currency: string }) {
  const rate = numbers.won_rate === null ? '—' : `${Math.round(numbers.won_rate * 1000) / 10}%`;
  return (
    <section class="card" id="numbers" aria-labelledby="numbers-title">
      <h2 id="numbers-title">Your last {numbers.days} days</h2>
      <DataTable
        compact
        rows={[
          ['Leads claimed', formatCount(numbers.claims)],
          ['Time to first reply, from the request (median)', spokenDuration(numbers.median_first_reply_s)],
          ['Won', `${formatCount(numbers.won)} (${rate} of your claims)`],
          ['Lost', formatCount(numbers.lost)],
          [
            'Won value',
            numbers.won_value.map((entry) => formatMoney(entry.value_minor, entry.currency)).join(', ') || '—',
          ],
          ['Lead fees paid', formatMoney(numbers.fees_minor, currency)],
        ]}
        columns={[
          { header: 'Measure', rowHeader: true, cell: ([label]) => label },
          { header: 'Value', cell: ([, value]) => value },
        ]}
      />
    </section>
  );
}
