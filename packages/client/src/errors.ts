/** A problem found in one field of a request, as the API reports it in `details`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** The base of every error this package throws. */
export class VigilError extends Error {
  override readonly name: string = 'VigilError';
}

/** The API answered with an error status; `code` is the stable value to branch on. */
export class APIError extends VigilError {
  override readonly name: string = 'APIError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: FieldProblem[] | undefined;
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers) {
    const problem = errorBodyOf(body);
    super(problem.error ?? `The API answered ${status} without an error body.`);
    this.status = status;
    this.code = problem.code ?? 'UNKNOWN';
    this.requestId = problem.requestId ?? headers.get('x-request-id');
    this.details = problem.details;
    this.headers = headers;
  }
}

export class AuthenticationError extends APIError {
  override readonly name: string = 'AuthenticationError';
}
export class PlanRequiredError extends APIError {
  override readonly name: string = 'PlanRequiredError';
}
export class NotFoundError extends APIError {
  override readonly name: string = 'NotFoundError';
}
export class ConflictError extends APIError {
  override readonly name: string = 'ConflictError';
}
export class ValidationError extends APIError {
  override readonly name: string = 'ValidationError';
}
export class RateLimitError extends APIError {
  override readonly name: string = 'RateLimitError';
  /** Seconds to wait before the window restarts (the `Retry-After` header), when the API said. */
  readonly retryAfter: number | null;

  constructor(status: number, body: unknown, headers: Headers) {
    super(status, body, headers);
    const seconds = Number(headers.get('retry-after'));
    this.retryAfter = headers.has('retry-after') && Number.isFinite(seconds) ? seconds : null;
  }
}
export class InternalServerError extends APIError {
  override readonly name: string = 'InternalServerError';
}

/** The request never got an answer: refused, reset, or a name that does not resolve. */
export class APIConnectionError extends VigilError {
  override readonly name: string = 'APIConnectionError';

  constructor(message = 'Could not reach the Vigil API.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the request's `timeout`. */
export class APITimeoutError extends APIConnectionError {
  override readonly name: string = 'APITimeoutError';

  constructor(timeoutMs: number) {
    super(`The Vigil API did not answer within ${timeoutMs} ms.`);
  }
}

/** A webhook's signature or timestamp did not check out: do not trust its body. */
export class WebhookVerificationError extends VigilError {
  override readonly name: string = 'WebhookVerificationError';
}

interface ErrorBodyFields {
  error?: string;
  code?: string;
  requestId?: string;
  details?: FieldProblem[];
}

function errorBodyOf(body: unknown): ErrorBodyFields {
  if (typeof body !== 'object' || body === null) return {};
  const { error, code, requestId, details } = body as Record<string, unknown>;
  return {
    error: typeof error === 'string' ? error : undefined,
    code: typeof code === 'string' ? code : undefined,
    requestId: typeof requestId === 'string' ? requestId : undefined,
    details: Array.isArray(details) ? (details as FieldProblem[]) : undefined,
  };
}

/** The class that fits an error answer's status. */
export function errorFor(status: number, body: unknown, headers: Headers): APIError {
  if (status === 401) return new AuthenticationError(status, body, headers);
  if (status === 403) return new PlanRequiredError(status, body, headers);
  if (status === 404) return new NotFoundError(status, body, headers);
  if (status === 409) return new ConflictError(status, body, headers);
  if (status === 422) return new ValidationError(status, body, headers);
  if (status === 429) return new RateLimitError(status, body, headers);
  if (status >= 500) return new InternalServerError(status, body, headers);
  return new APIError(status, body, headers);
}
