const initialDelayMs = 500;
const maxDelayMs = 8_000;
/** A server asking for a longer wait than this gets this: a client call should not hang for minutes. */
export const maxRetryAfterMs = 60_000;

/** `Retry-After` as milliseconds: whole seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0 for the first): what the server asked for, capped,
 * or exponential back-off with up to a quarter taken off at random so that clients spread out.
 */
export function retryDelayMs(retry: number, headers: Headers | undefined, random = Math.random()): number {
  const asked = headers ? retryAfterMs(headers) : null;
  if (asked !== null) return Math.min(asked, maxRetryAfterMs);
  const exponential = Math.min(initialDelayMs * 2 ** retry, maxDelayMs);
  return exponential * (1 - random * 0.25);
}

/** Waits, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
