import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { ConcurrencyLimit, NoTurnInTime } from '../../platform/concurrency-limit.js';
import { RetryLater } from '../../platform/errors.js';

/** A session or link token: 32 random bytes, base64url (what goes in the cookie or the link). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a token: its SHA-256, so a copy of the database opens no session. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session, derived from its token with the server's secret key: the console
 * reads it from `GET /session` and sends it in `X-CSRF-Token`, which another site cannot do.
 */
export function csrfTokenFor(secretKey: string, sessionToken: string): string {
  return createHmac('sha256', secretKey).update(`csrf:${sessionToken}`, 'utf8').digest('base64url');
}

export function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * argon2 runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
 * file reads and DNS share: a burst of sign-ins may hold half of it, never all of it, so static
 * files keep being served. A hash that waits too long for a turn is answered 503 with Retry-After.
 */
const threadPoolSize = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const hashing = new ConcurrencyLimit(Math.max(1, Math.floor(threadPoolSize / 2)), { ms: 10_000, waitingFor: 'password hashing slot' });

/** How many password hashes run and wait now (at most half the thread pool runs). */
export const passwordHashingLoad = () => ({ ...hashing.load('argon2'), slots: hashing.perKey });

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await hashing.run('argon2', work);
  } catch (error) {
    if (error instanceof NoTurnInTime) throw new RetryLater('SERVICE_UNAVAILABLE', 'Too many sign-ins at once; try again in a moment.', 1);
    throw error;
  }
}

/** argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes). */
export function hashPassword(password: string): Promise<string> {
  return inTurn(() => hash(password));
}

export function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  return inTurn(() => verify(passwordHash, password));
}
