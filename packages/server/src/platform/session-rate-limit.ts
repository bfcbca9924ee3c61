import { ApiError } from './errors.js';
import type { RateLimitDecision, RateLimiter } from './rate-limit.js';

/** Where the X-RateLimit-* headers go; a WebSocket connection has none. */
export interface HeaderSink {
  header(name: string, value: number): unknown;
}

/** Sends a decision's X-RateLimit-* headers, and refuses with 429 and Retry-After when it is over the limit. */
export function answerDecision(decision: RateLimitDecision, headers: HeaderSink | undefined, message: string): void {
  headers?.header('X-RateLimit-Limit', decision.limit);
  headers?.header('X-RateLimit-Remaining', decision.remaining);
  headers?.header('X-RateLimit-Reset', decision.resetAt);
  if (!decision.allowed) {
    headers?.header('Retry-After', decision.retryAfter);
    throw new ApiError('RATE_LIMITED', message);
  }
}

/**
 * A console session's own limit (VIGIL_SESSION_RATE_LIMIT per minute), counted per session with
 * the same fixed windows and counters as the API keys' (so across processes with Redis). The
 * session's id keys its counter: a person's requests never use up their organization's API limit.
 */
export async function limitSession(limiter: RateLimiter, sessionId: string, perMinute: number, now: number, headers: HeaderSink): Promise<void> {
  const decision = await limiter.take(`session:${sessionId}`, perMinute, now);
  answerDecision(decision, headers, `This session's limit of ${perMinute} requests per minute is used up; wait ${decision.retryAfter} seconds.`);
}
