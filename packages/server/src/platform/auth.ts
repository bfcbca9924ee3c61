import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyGrant } from '../modules/api-keys/store.js';
import { hashApiKey, isWellFormedApiKey } from '../modules/api-keys/key-material.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { sendError } from './http-errors.js';
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
const authorizationCount = (request: FastifyRequest): number =>
  request.raw.rawHeaders.filter((name, index) => index % 2 === 0 && name.toLowerCase() === 'authorization').length;

function presentedKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (authorizationCount(request) > 1) throw unauthorized('Send exactly one Authorization header.');
  if (!header) throw unauthorized('Send your API key in the Authorization header: Bearer svc_live_….');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <API key>".');
  if (!isWellFormedApiKey(match[1])) throw unauthorized('That is not a valid API key.');
  return match[1];
}

/** Runs for every request of the context it is added to, in the contract's order: 401 → 403 → 429. */
export function requireApiKey(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const now = options.clock.now();
    const grant = await options.lookupGrant(hashApiKey(presentedKey(request)));
    if (!grant || grant.revoked) throw unauthorized('That API key is not valid or has been revoked.');
    if (grant.expiresAt !== null && grant.expiresAt <= now.getTime()) throw unauthorized('That API key has expired.');
    if (!planRules[grant.plan].apiAccess) {
      throw new ApiError(
        'PLAN_UPGRADE_REQUIRED',
        `The REST API is available on the Business and Enterprise plans; this organization is on ${grant.plan}.`,
      );
    }
    const decision = await options.limiter.take(grant.orgId, requestsPerMinute(grant.plan, grant.rateLimitPerMinute), now.getTime());
    reply.header('X-RateLimit-Limit', decision.limit);
    reply.header('X-RateLimit-Remaining', decision.remaining);
    reply.header('X-RateLimit-Reset', decision.resetAt);
    if (!decision.allowed) {
      reply.header('Retry-After', decision.retryAfter);
      return sendError(reply, request, new ApiError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per minute exceeded.`));
    }
    options.touchKey(grant.keyId, now);
    options.countRequest?.(grant.orgId, now);
    request.caller = { orgId: grant.orgId, keyId: grant.keyId };
  });
}
