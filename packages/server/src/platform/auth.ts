import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyGrant } from '../modules/api-keys/store.js';
import { hashApiKey, isWellFormedApiKey } from '../modules/api-keys/key-material.js';
import type { Role } from '../modules/users/schema.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { planRules, requestsPerMinute } from './plans.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * Who is calling: an API key acts as its organization; a console session acts as its user, with
 * that user's role (checked by platform/access-policy.ts).
 */
export type Caller =
  | { kind: 'apiKey'; orgId: string; keyId: string; userId: null; role: null }
  | { kind: 'session'; orgId: string; keyId: null; userId: string; role: Role; sessionId: string };

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

/** A console session as authentication needs it (modules/sessions provides it). */
export interface SessionAuth {
  cookieName: string;
  /** The live session of a cookie's token; `extended` when its expiry slid forward. */
  present(token: string): Promise<{ grant: { sessionId: string; orgId: string; userId: string; role: Role }; extended: boolean } | undefined>;
  /** Whether `presented` is the session's CSRF token (compared in constant time). */
  csrfMatches(token: string, presented: string): boolean;
  /** Sends the cookie again, with the expiry that just slid forward. */
  renewCookie(reply: FastifyReply, token: string): void;
}

export interface AuthOptions {
  lookupGrant(keyHash: string): Promise<KeyGrant | undefined>;
  touchKey(keyId: string, at: Date): void;
  /** Called once per accepted request (past auth, plan and rate limit); must be cheap. */
  countRequest?(orgId: string, at: Date): void;
  limiter: RateLimiter;
  clock: Clock;
  /** Console sessions; without it only API keys are accepted. */
  sessions?: SessionAuth;
}

/** The id an event records as who caused it: the person behind a session, or the API key. */
export const actorOf = (caller: Caller): string => (caller.kind === 'session' ? caller.userId : caller.keyId);

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/** Node keeps the first of several Authorization headers; which key is meant is then a guess, so refuse. */
function refuseRepeatedAuthorization(request: FastifyRequest): void {
  const count = request.raw.rawHeaders.filter((name, index) => index % 2 === 0 && name.toLowerCase() === 'authorization').length;
  if (count > 1) throw unauthorized('Send exactly one Authorization header.');
}

function presentedKey(authorization: string | undefined): string {
  if (!authorization) throw unauthorized('Send your API key in the Authorization header: Bearer svc_live_….');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <API key>".');
  if (!isWellFormedApiKey(match[1])) throw unauthorized('That is not a valid API key.');
  return match[1];
}

/** Where the X-RateLimit-* headers go; a WebSocket connection has none. */
export interface HeaderSink {
  header(name: string, value: number): unknown;
}

/**
 * 401 and 403 without counting a request: what a long-lived connection re-checks, so that a
 * revoked or expired key, or a plan change, ends it.
 */
export async function checkGrant(authorization: string | undefined, options: AuthOptions, now = options.clock.now()): Promise<KeyGrant> {
  const grant = await options.lookupGrant(hashApiKey(presentedKey(authorization)));
  if (!grant || grant.revoked) throw unauthorized('That API key is not valid or has been revoked.');
  if (grant.expiresAt !== null && grant.expiresAt <= now.getTime()) throw unauthorized('That API key has expired.');
  if (!planRules[grant.plan].apiAccess) {
    throw new ApiError(
      'PLAN_UPGRADE_REQUIRED',
      `The API is available on the Business and Enterprise plans; this organization is on ${grant.plan}.`,
    );
  }
  return grant;
}

/**
 * The one admission check of every API (REST, GraphQL over HTTP and WebSocket), in the contract's
 * order: 401 → 403 → 429. Sets the rate-limit headers once the organization is known and returns
 * the caller, or throws the ApiError to answer with.
 */
export async function authenticate(authorization: string | undefined, options: AuthOptions, headers?: HeaderSink): Promise<Caller> {
  const now = options.clock.now();
  const grant = await checkGrant(authorization, options, now);
  const decision = await options.limiter.take(grant.orgId, requestsPerMinute(grant.plan, grant.rateLimitPerMinute), now.getTime());
  headers?.header('X-RateLimit-Limit', decision.limit);
  headers?.header('X-RateLimit-Remaining', decision.remaining);
  headers?.header('X-RateLimit-Reset', decision.resetAt);
  if (!decision.allowed) {
    headers?.header('Retry-After', decision.retryAfter);
    throw new ApiError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per minute exceeded.`);
  }
  options.touchKey(grant.keyId, now);
  options.countRequest?.(grant.orgId, now);
  return { kind: 'apiKey', orgId: grant.orgId, keyId: grant.keyId, userId: null, role: null };
}

const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The admission check of a console session: live (not revoked, not expired, its user active), and
 * on every state-changing request the session's CSRF token in `X-CSRF-Token`. No plan gate and no
 * rate limit: those belong to API keys, so the console works on every plan.
 */
async function authenticateSession(request: FastifyRequest, reply: FastifyReply, token: string, sessions: SessionAuth): Promise<Caller> {
  const presented = await sessions.present(token);
  if (!presented) throw unauthorized('Your session has ended. Sign in again.');
  if (!readOnlyMethods.has(request.method)) {
    const csrf = request.headers['x-csrf-token'];
    if (typeof csrf !== 'string' || !sessions.csrfMatches(token, csrf)) {
      throw new ApiError('FORBIDDEN', 'This request lacks the session\'s CSRF token (X-CSRF-Token). Reload the page and try again.');
    }
  }
  if (presented.extended) sessions.renewCookie(reply, token);
  const { grant } = presented;
  return { kind: 'session', orgId: grant.orgId, keyId: null, userId: grant.userId, role: grant.role, sessionId: grant.sessionId };
}

/**
 * Authenticates every request of the context it is added to: an `Authorization: Bearer` API key,
 * or else the console's session cookie.
 */
export function requireApiKey(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('caller', null as unknown as never);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    refuseRepeatedAuthorization(request);
    const sessionToken = options.sessions && !request.headers.authorization ? request.cookies[options.sessions.cookieName] : undefined;
    request.caller = sessionToken
      ? await authenticateSession(request, reply, sessionToken, options.sessions!)
      : await authenticate(request.headers.authorization, options, reply);
  });
}
