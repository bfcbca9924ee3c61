import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyGrant } from '../modules/api-keys/store.js';
import { hashApiKey, isWellFormedApiKey } from '../modules/api-keys/key-material.js';
import type { Role } from '../modules/users/schema.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { planRules, requestsPerMinute } from './plans.js';
import type { RateLimiter } from './rate-limit.js';
import { answerDecision, type HeaderSink, limitSession } from './session-rate-limit.js';

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
  /** Requests per minute per console session (VIGIL_SESSION_RATE_LIMIT). */
  sessionRateLimit?: number;
}

/** The id an event records as who caused it: the person behind a session, or the API key. */
export const actorOf = (caller: Caller): string => (caller.kind === 'session' ? caller.userId : caller.keyId);

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/** Node keeps the first of several Authorization headers; which key is meant is then a guess, so refuse. */
function refuseRepeatedAuthorization(request: FastifyRequest): void {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index].length === 13 && raw[index].toLowerCase() === 'authorization' && ++count > 1) throw unauthorized('Send exactly one Authorization header.');
  }
}

function presentedKey(authorization: string | undefined): string {
  if (!authorization) throw unauthorized('Send your API key in the Authorization header: Bearer svc_live_….');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <API key>".');
  if (!isWellFormedApiKey(match[1])) throw unauthorized('That is not a valid API key.');
  return match[1];
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
  answerDecision(decision, headers, `Rate limit of ${decision.limit} requests per minute exceeded.`);
  options.touchKey(grant.keyId, now);
  options.countRequest?.(grant.orgId, now);
  return { kind: 'apiKey', orgId: grant.orgId, keyId: grant.keyId, userId: null, role: null };
}

const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The admission check of a console session: live (not revoked, not expired, its user active), and
 * on every state-changing request the session's CSRF token in `X-CSRF-Token`. No plan gate and not
 * the organization's API limit, so the console works on every plan; a limit per session instead.
 */
async function authenticateSession(request: FastifyRequest, reply: FastifyReply, token: string, options: AuthOptions): Promise<Caller> {
  const sessions = options.sessions!;
  const presented = await sessions.present(token);
  if (!presented) throw unauthorized('Your session has ended. Sign in again.');
  if (options.sessionRateLimit !== undefined) {
    await limitSession(options.limiter, presented.grant.sessionId, options.sessionRateLimit, options.clock.now().getTime(), reply);
  }
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
 * The console's session token, when the request carries no API key. Cookies are parsed here, and
 * only here (the cookie plugin runs with `hook: false`): a request with an API key pays nothing
 * for them.
 */
function sessionTokenOf(request: FastifyRequest, sessions: SessionAuth | undefined): string | undefined {
  const header = request.headers.cookie;
  if (!sessions || request.headers.authorization !== undefined || header === undefined) return undefined;
  request.cookies = request.server.parseCookie(header);
  return request.cookies[sessions.cookieName];
}

/**
 * Authenticates every request of the context it is added to: an `Authorization: Bearer` API key,
 * or else the console's session cookie.
 */
export function requireApiKey(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('caller', null as unknown as never);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    refuseRepeatedAuthorization(request);
    const sessionToken = sessionTokenOf(request, options.sessions);
    request.caller = sessionToken
      ? await authenticateSession(request, reply, sessionToken, options)
      : await authenticate(request.headers.authorization, options, reply);
  });
}
