import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

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

/** argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password);
}
