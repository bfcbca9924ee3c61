import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import stringify from 'safe-stable-stringify';
import type { Db } from '../db/connect.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { claimKey, releaseKey, storeAnswer } from './idempotency-store.js';

export const idempotencyHeader = 'idempotency-key';
export const replayedHeader = 'Idempotent-Replayed';

const retainMs = 24 * 60 * 60 * 1000;
/** Longer than any request runs (a large upload, a slow AI provider); after it a crashed request's key is free again. */
const lockMs = 10 * 60 * 1000;
const wellFormedKey = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyOptions {
  db: Db;
  clock: Clock;
}

interface HeldKey {
  orgId: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: HeldKey | null;
  }
}

/**
 * What makes two requests "the same": method, path with query, and the JSON body with its keys
 * sorted. A streamed upload's body is not read here (it is never held in memory), so for uploads
 * the key alone decides.
 */
function fingerprintOf(request: FastifyRequest): string {
  const isJson = (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
  const body = isJson ? (stringify(request.body) ?? '') : '';
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

function keyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[idempotencyHeader];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !wellFormedKey.test(value)) {
    const message = 'must be 1 to 255 printable ASCII characters without spaces (a UUID is a good choice)';
    throw new ApiError('VALIDATION_ERROR', `The Idempotency-Key header ${message}.`, [{ field: 'Idempotency-Key', message }]);
  }
  return value;
}

/** A replayed error names this request, as its X-Request-Id header does (the first request's id is in the logs of that one). */
function withRequestId(body: string, requestId: string): string {
  if (!body.includes('"requestId"')) return body;
  const parsed = JSON.parse(body) as Record<string, unknown>;
  return JSON.stringify({ ...parsed, requestId });
}

/**
 * Idempotent POSTs for every route of the context it is added to (after authentication): the first
 * request with a given `Idempotency-Key` runs and its answer is stored per organization for 24 hours;
 * a repeat gets that answer again, marked `Idempotent-Replayed: true`. Runs after body validation,
 * so a request refused as invalid never takes the key. A 5xx answer is not kept: the change was
 * rolled back, and a retry should run again.
 */
export function idempotentPosts(app: FastifyInstance, { db, clock }: IdempotencyOptions): void {
  app.decorateRequest('idempotencyKey', null);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const key = keyOf(request);
    if (key === undefined) return;
    const { orgId } = request.caller;
    const fingerprint = fingerprintOf(request);
    const found = await claimKey(db, { orgId, key, fingerprint, owner: request.id, now: clock.now(), lockMs, retainMs });
    if (found.state === 'claimed') {
      request.idempotencyKey = { orgId, key };
      return;
    }
    if (found.fingerprint !== fingerprint) {
      const message = 'was already used with a different request (method, path or body); use a new key for a new request';
      throw new ApiError('VALIDATION_ERROR', `Idempotency-Key "${key}" ${message}.`, [{ field: 'Idempotency-Key', message }]);
    }
    if (found.state === 'running') {
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS', `A request with Idempotency-Key "${key}" is still running; retry once it has finished.`);
    }
    const body = withRequestId(found.answer.body, request.id);
    return reply.status(found.answer.status).header('content-type', found.answer.contentType).header(replayedHeader, 'true').send(body);
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = request.idempotencyKey;
    if (!held) return payload;
    request.idempotencyKey = null;
    const storable = typeof payload === 'string' || Buffer.isBuffer(payload) || payload === null;
    if (reply.statusCode >= 500 || !storable) {
      await releaseKey(db, held.orgId, held.key, request.id);
      return payload;
    }
    const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
    const body = payload === null ? '' : payload.toString();
    // The change is made: a failure to store its answer must not turn it into an error. The key stays
    // locked until lockMs, so a repeat meanwhile gets 409 rather than a second change.
    await storeAnswer(db, held.orgId, held.key, request.id, { status: reply.statusCode, contentType, body }).catch((error: unknown) =>
      request.log.error({ err: error }, 'could not store the answer of an idempotent request'),
    );
    return payload;
  });
}
