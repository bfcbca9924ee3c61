import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import stringify from 'safe-stable-stringify';
import type { Db } from '../db/connect.js';
import type { Rider } from '../db/rider.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { claimKey, isTakenKey, keyWithAnswer, releaseKey, storeAnswer } from './idempotency-store.js';

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

declare module 'fastify' {
  interface FastifyInstance {
    idempotency: IdempotencyOptions;
  }
}

interface HeldKey {
  orgId: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: HeldKey | null;
  }
  interface FastifyContextConfig {
    /**
     * The route stores its key and answer in the transaction that makes its change
     * (`answerOnce`), instead of a statement before and one after it.
     */
    idempotentInTransaction?: boolean;
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
  return hash('sha256', `${request.method} ${request.url}\n${body}`, 'hex');
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
 * Takes the key before the route runs, or answers in its place: the stored answer again (a
 * repeat), 422 (the key was used for another request) or 409 (the first request still runs).
 */
async function claimBefore(request: FastifyRequest, reply: FastifyReply, { db, clock }: IdempotencyOptions, key: string): Promise<'claimed' | 'replayed'> {
  const { orgId } = request.caller;
  const fingerprint = fingerprintOf(request);
  const found = await claimKey(db, { orgId, key, fingerprint, owner: request.id, now: clock.now(), lockMs, retainMs });
  if (found.state === 'claimed') {
    request.idempotencyKey = { orgId, key };
    return 'claimed';
  }
  if (found.fingerprint !== fingerprint) {
    const message = 'was already used with a different request (method, path or body); use a new key for a new request';
    throw new ApiError('VALIDATION_ERROR', `Idempotency-Key "${key}" ${message}.`, [{ field: 'Idempotency-Key', message }]);
  }
  if (found.state === 'running') {
    throw new ApiError('IDEMPOTENCY_IN_PROGRESS', `A request with Idempotency-Key "${key}" is still running; retry once it has finished.`);
  }
  reply.status(found.answer.status).header('content-type', found.answer.contentType).header(replayedHeader, 'true').send(withRequestId(found.answer.body, request.id));
  return 'replayed';
}

/** Stores the answer of a request that took its key before it ran, or lets the key go after a 5xx. */
async function storeAfter(request: FastifyRequest, reply: FastifyReply, { db }: IdempotencyOptions, payload: unknown): Promise<unknown> {
  const held = request.idempotencyKey;
  if (!held) return payload;
  request.idempotencyKey = null;
  const storable = typeof payload === 'string' || Buffer.isBuffer(payload) || payload === null;
  if (reply.statusCode >= 500 || !storable) {
    await releaseKey(db, held.orgId, held.key, request.id);
    return payload;
  }
  const contentType = String(reply.getHeader('content-type') ?? jsonType);
  const body = payload === null ? '' : payload.toString();
  // The change is made: a failure to store its answer must not turn it into an error. The key stays
  // locked until lockMs, so a repeat meanwhile gets 409 rather than a second change.
  await storeAnswer(db, held.orgId, held.key, request.id, { status: reply.statusCode, contentType, body }).catch((error: unknown) =>
    request.log.error({ err: error }, 'could not store the answer of an idempotent request'),
  );
  return payload;
}

const jsonType = 'application/json; charset=utf-8';

/**
 * Idempotent POSTs for every route of the context it is added to (after authentication): the first
 * request with a given `Idempotency-Key` runs and its answer is stored per organization for 24 hours;
 * a repeat gets that answer again, marked `Idempotent-Replayed: true`. Runs after body validation,
 * so a request refused as invalid never takes the key. A 5xx answer is not kept: the change was
 * rolled back, and a retry should run again.
 */
export function idempotentPosts(app: FastifyInstance, options: IdempotencyOptions): void {
  app.decorateRequest('idempotencyKey', null);
  app.decorate('idempotency', options);

  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const key = keyOf(request);
    if (key !== undefined && (await claimBefore(request, reply, options, key)) === 'replayed') return reply;
  };
  const settle = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => storeAfter(request, reply, options, payload);

  // On the POST routes only: every other request would pay two hooks for nothing.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    if (!route.config?.idempotentInTransaction) route.preHandler = [...asList(route.preHandler), claim];
    route.onSend = [...asList(route.onSend), settle];
  });
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * What a route's change asks for once its result is known, inside its transaction (see
 * `answerOnce`): the key and its answer, a write to send with one of its statements, or alone
 * (`settleRider`). When another request has the key, that write fails and the change is rolled back.
 */
export type WithinTransaction<T> = (result: T) => Rider;

/**
 * Runs a change made in one transaction and answers `status` with `answerOf(result)`. With an
 * `Idempotency-Key`, the key and the serialized answer are written in that same transaction, with
 * one of its statements (no round trip of their own) or alone; when the key is already taken, the
 * change is rolled back and the request is answered as a repeat. An error answer (say a 404) takes
 * the key after the fact, so its repeat is replayed too. The route declares
 * `config: { idempotentInTransaction: true }`.
 */
export interface OnceAnswered<T> {
  /** The success status, or how the result decides it (a repeat of a deduplicated alert is 200, a new one 201). */
  status: number | ((result: T) => number);
  /** The change, in one transaction that calls `within` (when given) once its result is known and sends its rider. */
  change: (within?: WithinTransaction<T>) => Promise<T>;
  answerOf: (result: T) => unknown;
}

export function answerOnce<T>(request: FastifyRequest, reply: FastifyReply, once: OnceAnswered<T>): void {
  // A handler that returns nothing and sends by itself: Fastify waits for the reply.
  answer(request, reply, once).catch((error: unknown) => reply.send(error));
}

async function answer<T>(request: FastifyRequest, reply: FastifyReply, { status, change, answerOf }: OnceAnswered<T>): Promise<void> {
  const statusOf = (result: T): number => (typeof status === 'number' ? status : status(result));
  const key = keyOf(request);
  if (key === undefined) {
    const result = await change();
    reply.status(statusOf(result)).send(answerOf(result));
    return;
  }
  const options = request.server.idempotency;
  const claim = { orgId: request.caller.orgId, key, fingerprint: fingerprintOf(request), owner: request.id, now: options.clock.now(), lockMs, retainMs };
  let body = '';
  let answered = 0;
  const serialize = (result: T): void => {
    answered = statusOf(result);
    body = String(reply.status(answered).serialize(answerOf(result)));
  };
  try {
    await change((result) => {
      serialize(result);
      return keyWithAnswer(claim, { status: answered, contentType: jsonType, body });
    });
  } catch (error) {
    const taken = isTakenKey(error);
    if (!taken && !(error instanceof ApiError && error.status < 500)) throw error;
    if ((await claimBefore(request, reply, options, key)) === 'replayed') return;
    if (!taken) throw error;
    // The key is this request's now (it was let go after a 5xx, or its time was up): it runs as any other.
    serialize(await change());
  }
  reply.status(answered).type(jsonType).send(body);
}
