import { webhookAttemptDuration, webhookAttempts } from '../platform/metrics.js';
import type { AttemptOutcome } from './sender.js';

/** success (2xx), http_error (any other status), or the failure's own name (timeout, tls, …). */
function outcomeLabel(outcome: AttemptOutcome): string {
  if (outcome.error !== null) return outcome.error;
  return outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300 ? 'success' : 'http_error';
}

export function countAttempt(outcome: AttemptOutcome): void {
  const labels = { outcome: outcomeLabel(outcome) };
  webhookAttempts.inc(labels);
  webhookAttemptDuration.observe(labels, outcome.durationMs / 1000);
}

/**
 * Attempts closed without an outcome of their own, lost with their worker or never sent: counted
 * by outcome, with no duration (a lost one's is not known, an unsent one had none).
 */
export function countClosedAttempts(outcome: 'worker_lost' | 'not_sent', count: number): void {
  if (count > 0) webhookAttempts.inc({ outcome }, count);
}
