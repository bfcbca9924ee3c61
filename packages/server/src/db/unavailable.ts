/**
 * The database could not be reached or did not answer in time (PostgreSQL restarting, stopped,
 * frozen, or out of connections). The HTTP layer answers it with 503 SERVICE_UNAVAILABLE and
 * `Retry-After`, not 500: the request was fine and can be sent again shortly.
 */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super(`The database is not reachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailable';
  }
}

/** Seconds a client is asked to wait before retrying while the database is away. */
export const databaseRetryAfterSeconds = 5;

/** Node's socket errors that mean "no connection", not "bad query". */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of an unreachable or unwilling server: class 08 (connection exception), 53300 (too many
 * connections), 57P01–57P03 (shutting down, crashed, starting up) and 57014 (statement_timeout).
 */
const serverCodes = new Set(['53300', '57P01', '57P02', '57P03', '57014']);

/** pg's own messages for a lost connection, a connect timeout and a client-side query timeout. */
const clientMessages = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i;

export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || serverCodes.has(code) || socketCodes.has(code))) return true;
  return clientMessages.test(error.message);
}

/** Runs `work`, turning a connection failure into DatabaseUnavailable and leaving other errors as they are. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isConnectionFailure(error) ? new DatabaseUnavailable(error) : error;
  }
}

/**
 * Failures after which the statement surely did not run: the connection was refused or never made,
 * the server would not start it, or it cancelled it (rolled back).
 */
const notRunCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '53300', '57P03', '57014']);

/**
 * True when a statement that failed may still have been carried out: the connection was lost while
 * it ran or with its answer on the way (reset, terminated, a server that went silent).
 */
export function answerMayBeLost(error: unknown): boolean {
  if (!(error instanceof DatabaseUnavailable)) return false;
  const cause = error.cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && notRunCodes.has(code)) return false;
  return !(cause instanceof Error && /timeout exceeded when trying to connect/i.test(cause.message));
}
