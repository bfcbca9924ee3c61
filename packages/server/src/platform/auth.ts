import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyGrant } from '../modules/api-keys/store.js';
import { hashApiKey, isWellFormedApiKey } from '../modules/api-keys/key-material.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { planRules, requestsPerMinute } from './plans.js';
import type { RateLimiter } from './rate-limit.js';

export interface Caller {
  orgId: string;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface AuthOptions {
  lookupGrant(keyHash: string): Promise<KeyGrant | undefined>;
  touchKey(keyId: string, at: Date): void;
  /** Called once per accepted request (past auth, plan and rate limit); must be cheap. */
  countRequest?(orgId: string, at: Date): void;
  limiter: RateLimiter;
  clock: Clock;
}

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
  return { orgId: grant.orgId, keyId: grant.keyId };
}

/** Runs `authenticate` for every request of the context it is added to. */
export function requireApiKey(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    refuseRepeatedAuthorization(request);
    request.caller = await authenticate(request.headers.authorization, options, reply);
  });
}
