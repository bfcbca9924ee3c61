/** Every code the API answers with; the OpenAPI document publishes this list as the Error schema's enum. */
export const errorCodes = [
  'UNAUTHORIZED',
  'PLAN_UPGRADE_REQUIRED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'IDEMPOTENCY_IN_PROGRESS',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'AI_PROVIDER_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export interface FieldProblem {
  field: string;
  message: string;
}

export const statusOf: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  PLAN_UPGRADE_REQUIRED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  VALIDATION_ERROR: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  AI_PROVIDER_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
};

/** The error every layer throws; the HTTP layer turns it into `{error, code, details?}`. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = statusOf[code];
  }
}

/** A refusal the client may send again after `retryAfter` seconds; the HTTP layer adds Retry-After. */
export class RetryLater extends ApiError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfter: number,
  ) {
    super(code, message);
  }
}

export const notFound = (what: string): ApiError => new ApiError('NOT_FOUND', `No such ${what}.`);

export const invalid = (field: string, message: string): ApiError =>
  new ApiError('VALIDATION_ERROR', `${field} ${message}.`, [{ field, message }]);

export const conflict = (message: string): ApiError => new ApiError('CONFLICT', message);

/** The value, or NOT_FOUND naming what was looked for. */
export function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw notFound(what);
  return value;
}
