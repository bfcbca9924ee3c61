import { type ApiError, type ErrorCode, RetryLater } from './errors.js';

/** The header the clients read before their own rules (openai's and Stainless's clients read it too). */
export const shouldRetryHeader = 'x-should-retry';

/**
 * Whether sending the same request again may get another answer. A `Record` over every code, so a
 * new code cannot ship without this decision. 409 IDEMPOTENCY_IN_PROGRESS is worth retrying (the
 * first request will finish); 409 CONFLICT and 422 are not (the same request gets the same refusal).
 */
const retryableCodes: Record<ErrorCode, boolean> = {
  UNAUTHORIZED: false,
  PLAN_UPGRADE_REQUIRED: false,
  FORBIDDEN: false,
  NOT_FOUND: false,
  CONFLICT: false,
  IDEMPOTENCY_IN_PROGRESS: true,
  VALIDATION_ERROR: false,
  PAYLOAD_TOO_LARGE: false,
  UNSUPPORTED_MEDIA_TYPE: false,
  REQUEST_TIMEOUT: true,
  HEADERS_TOO_LARGE: false,
  RATE_LIMITED: true,
  INTERNAL_ERROR: true,
  AI_PROVIDER_ERROR: true,
  SERVICE_UNAVAILABLE: true,
};

/** A wait longer than this is not one a client call should sit through (the month's AI allowance). */
const longestUsefulWaitSeconds = 60;

/** `x-should-retry`'s value for an error answer: a table lookup, so every error answer carries it at no cost. */
export function shouldRetry(error: ApiError): 'true' | 'false' {
  if (error instanceof RetryLater && error.retryAfter > longestUsefulWaitSeconds) return 'false';
  return retryableCodes[error.code] ? 'true' : 'false';
}
