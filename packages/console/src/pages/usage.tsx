import { api } from '../api';
import { ErrorNote, Loading, Page, useLoad } from '../ui';
import { type Usage } from '../generated/api';

type Counts = Pick<Usage['totals'], 'apiRequests' | 'aiQuestions' | 'tokens' | 'exports'>;

/** One measure per day as bars, with the month's total against the plan's limit. */
function DailyChart(props: { title: string; days: Usage['days']; measure: keyof Counts; total: number; limit: number | null }) {
  const values = props.days.map((day) => day[props.measure]);
  const highest = Math.max(1, ...values);
  const width = 12;
  return (
    <figure class="chart">
      <figcaption>
        <strong>{props.title}</strong>: {props.total.toLocaleString()} this month{props.limit === null ? ' (no limit on your plan)' : ` of ${props.limit.toLocaleString()}`}
      </figcaption>
      <svg viewBox={`0 0 ${values.length * width} 60`} role="img" aria-label={`${props.title} per day: ${values.join(', ')}`} preserveAspectRatio="none">
        {values.map((value, index) => (
          <rect key={index} x={index * width + 1} y={60 - (value / highest) * 58} width={width - 2} height={(value / highest) * 58} />
        ))}
      </svg>
    </figure>
  );
}

export function Usage() {
  const usage = useLoad(() => api<{ data: Usage }>('GET', 'usage'));
  const data = usage.value?.data;
  return (
    <Page title="Usage" intro="What your organization used this month, day by day, against your plan's limits.">
      <ErrorNote error={usage.error} />
      {!data && !usage.error && <Loading />}
      {data && (
        <>
          <p>
            Plan <strong>{data.plan}</strong>, from {data.period.start.slice(0, 10)} to {data.period.end.slice(0, 10)}. Stored: {data.stored.datasets} datasets,{' '}
            {data.stored.rows.toLocaleString()} rows{data.limits.rowsStored === null ? '' : ` of ${data.limits.rowsStored.toLocaleString()}`}.
          </p>
          <DailyChart title="API requests" days={data.days} measure="apiRequests" total={data.totals.apiRequests} limit={null} />
          <DailyChart title="AI questions" days={data.days} measure="aiQuestions" total={data.totals.aiQuestions} limit={data.limits.aiQuestionsPerMonth} />
          <DailyChart title="AI tokens" days={data.days} measure="tokens" total={data.totals.tokens} limit={data.limits.tokensPerMonth} />
          <DailyChart title="Exports" days={data.days} measure="exports" total={data.totals.exports} limit={data.limits.exportsPerMonth} />
        </>
      )}
    </Page>
  );
}
