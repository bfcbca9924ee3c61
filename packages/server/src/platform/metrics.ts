import type { RowsLoad } from '../data/ingest.js';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { droppedLogLines } from './log-output.js';

/**
 * The process's Prometheus metrics (docs/operations.md lists them). One registry per process, as
 * Prometheus scrapes processes: the instruments are module-level so that the HTTP layer, the
 * webhook worker and the data jobs record into the same one.
 */
export const registry = new Registry();
// Node's own: CPU, memory, GC, and the event-loop lag (nodejs_eventloop_lag_*).
collectDefaultMetrics({ register: registry });
// prom-client also names three gauges with a counter's `_total` suffix, which `promtool check metrics`
// rejects; their twins without the suffix (nodejs_active_handles, …) carry the same values.
for (const misnamed of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(misnamed);

export const registers = [registry];
export const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const rateLimitRefusals = new Counter({
  name: 'vigil_rate_limit_refusals_total',
  help: 'Requests refused with 429 RATE_LIMITED.',
  registers,
});

new Counter({
  name: 'vigil_log_lines_dropped_total',
  help: 'Log lines dropped because standard output took nothing while the most the log holds in memory waited for it.',
  registers,
  collect() {
    this.reset();
    this.inc(droppedLogLines());
  },
});

export const webhookAttempts = new Counter({
  name: 'vigil_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: success, http_error, or the failure (timeout, dns, tls, refused, connection, …, worker_lost, not_sent).',
  labelNames: ['outcome'] as const,
  registers,
});

export const webhookAttemptDuration = new Histogram({
  name: 'vigil_webhook_attempt_duration_seconds',
  help: 'Duration of one webhook delivery attempt, by outcome.',
  labelNames: ['outcome'] as const,
  buckets: seconds,
  registers,
});

export const dataJobDuration = new Histogram({
  name: 'vigil_data_job_duration_seconds',
  help: 'Duration of one data job (import, export, dataset load), by runner.',
  labelNames: ['runner'] as const,
  buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers,
});

export const datasetRowsLoaded = new Counter({
  name: 'vigil_dataset_rows_loaded_total',
  help: 'Rows loaded into datasets by uploads and imports, by how: as_written (CSV text loaded as it came) or rewritten (converted field by field).',
  labelNames: ['load'] as const,
  registers,
});

export const countRowsLoaded = (load: RowsLoad, rows: number): void => datasetRowsLoaded.inc({ load }, rows);

export const ingestThreadsBusy = new Gauge({
  name: 'vigil_ingest_threads_busy',
  help: 'Uploads being read and loaded now, each on a thread of its own.',
  registers,
});

export const webhookQueueDue = new Gauge({
  name: 'vigil_webhook_deliveries_due',
  help: 'Webhook deliveries due now and not being attempted (read at scrape time).',
  registers,
});

export const webhookOldestDueAge = new Gauge({
  name: 'vigil_webhook_oldest_due_age_seconds',
  help: 'How long the oldest due webhook delivery has been due; 0 when none is (read at scrape time).',
  registers,
});

export const projectSqlStatements = new Gauge({
  name: 'vigil_project_sql_statements',
  help: 'SQL run as a project role (AI questions, dashboard widgets) in this process: statements running, and waiting for a connection of their pool.',
  labelNames: ['state'] as const,
  registers,
});

export const databasePool = new Gauge({
  name: 'vigil_db_pool_connections',
  help: 'Connections of this process to PostgreSQL by state: total, idle, and requests waiting for one.',
  labelNames: ['state'] as const,
  registers,
});
