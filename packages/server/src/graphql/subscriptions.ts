import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import type { CommittedEvents } from '../events/committed.js';
import type { EventName } from '../events/catalog.js';
import type { RecordedEvent } from '../events/outbox.js';
import { type AuthOptions, authenticate, type Caller, checkGrant } from '../platform/auth.js';
import { ApiError } from '../platform/errors.js';
import type { Services } from '../services.js';
import { graphqlContext } from './context.js';
import { formatError } from './errors.js';
import type { DocumentCache, PreparedOperation } from './documents.js';

/** How often an open connection re-checks its key: a revoked key's subscriptions end within this. */
export const recheckEveryMs = 2_000;

const closeCodes: Partial<Record<ApiError['code'], number>> = {
  UNAUTHORIZED: CloseCode.Unauthorized,
  PLAN_UPGRADE_REQUIRED: CloseCode.Forbidden,
  RATE_LIMITED: 4429,
};

function subscription(events: CommittedEvents, event: EventName) {
  return {
    subscribe: (_: unknown, args: { projectId?: string | null }, { caller }: { caller: Caller }) =>
      events.subscribe(caller.orgId, event, (recorded) => !args.projectId || (recorded.data as { projectId?: string }).projectId === args.projectId),
    resolve: (recorded: RecordedEvent) => recorded.data,
  };
}

/** Subscription fields: the committed events of the caller's organization, optionally of one project. */
export const subscriptionResolvers = (events: CommittedEvents) => ({
  alertCreated: subscription(events, 'alert.created'),
  alertResolved: subscription(events, 'alert.resolved'),
  queryCompleted: subscription(events, 'query.completed'),
});

type Connection = {
  caller?: Caller;
  recheck?: NodeJS.Timeout;
  /** The key (or session) this socket counts against, once it was accepted. */
  counted?: string;
};

/** DESIGN §3.7: VIGIL_GRAPHQL_MAX_SUBSCRIPTIONS and VIGIL_GRAPHQL_MAX_SOCKETS. */
export interface SubscriptionCaps {
  perSocket: number;
  socketsPerKey: number;
}

export interface SubscriptionDeps {
  schema: GraphQLSchema;
  documents: DocumentCache;
  services: Services;
  auth: AuthOptions;
  secretKey: string;
  caps: SubscriptionCaps;
  log: FastifyBaseLogger;
}

function closeFor(error: unknown, close: (code: number, reason: string) => void): void {
  if (error instanceof ApiError && closeCodes[error.code]) close(closeCodes[error.code]!, error.message);
  else close(CloseCode.InternalServerError, 'Internal server error');
}

/** connection_init's `authorization`, whatever the case of its name (clients send `Authorization` too). */
function authorizationIn(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = Object.entries(params ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  return typeof value === 'string' ? value : undefined;
}

const callerKey = (caller: Caller) => (caller.kind === 'apiKey' ? caller.keyId : caller.sessionId);

/**
 * graphql-ws's server (the protocol's reference implementation) on @fastify/websocket, because it
 * lets the connection close with the protocol's 4401/4403 codes. Each socket holds at most
 * `caps.perSocket` subscriptions and each key at most `caps.socketsPerKey` sockets in this process,
 * so that one tenant cannot hold the memory and event fan-out of the others.
 */
export function subscriptionHandler({ schema, documents, services, auth, secretKey, caps, log }: SubscriptionDeps) {
  const socketsPerKey = new Map<string, number>();
  const handler = makeHandler<Record<string, unknown>, Connection>({
    schema,
    onConnect: async (ctx) => {
      const { socket, request } = ctx.extra;
      const authorization = authorizationIn(ctx.connectionParams) ?? request.headers.authorization;
      const close = (code: number, reason: string) => socket.close(code, reason);
      let caller: Caller;
      try {
        caller = await authenticate(authorization, auth);
      } catch (error) {
        if (!(error instanceof ApiError)) log.error({ err: error }, 'graphql-ws connection failed');
        closeFor(error, close);
        return false;
      }
      const key = callerKey(caller);
      const open = socketsPerKey.get(key) ?? 0;
      if (open >= caps.socketsPerKey) {
        close(4429, `At most ${caps.socketsPerKey} sockets per API key; close one first.`);
        return false;
      }
      socketsPerKey.set(key, open + 1);
      ctx.extra.counted = key;
      ctx.extra.caller = caller;
      ctx.extra.recheck = setInterval(() => {
        // Only a refusal ends the socket: a database that is away for a moment does not.
        checkGrant(authorization, auth).catch((error: unknown) => void (error instanceof ApiError && closeCodes[error.code] && closeFor(error, close)));
      }, recheckEveryMs);
      return true;
    },
    onClose: (ctx) => {
      clearInterval(ctx.extra.recheck);
      const key = ctx.extra.counted;
      if (key === undefined) return;
      ctx.extra.counted = undefined;
      const open = (socketsPerKey.get(key) ?? 1) - 1;
      if (open > 0) socketsPerKey.set(key, open);
      else socketsPerKey.delete(key);
    },
    onSubscribe: (ctx, _id, payload) => {
      const caller = ctx.extra.caller!;
      // graphql-ws has already counted this one among the socket's subscriptions.
      if (Object.keys(ctx.subscriptions).length > caps.perSocket) {
        return [new GraphQLError(`At most ${caps.perSocket} subscriptions per socket; complete one first.`, { extensions: { code: 'RATE_LIMITED' } })];
      }
      const prepared = documents.prepare({ query: payload.query, operationName: payload.operationName, variables: payload.variables });
      if (Array.isArray(prepared)) return prepared as GraphQLError[];
      const operation = prepared as PreparedOperation;
      if (operation.operation !== 'subscription') {
        return [new GraphQLError('Send queries and mutations over HTTP; this socket carries subscriptions.', { extensions: { code: 'VALIDATION_ERROR' } })];
      }
      return {
        schema,
        document: operation.document,
        variableValues: operation.variables,
        operationName: operation.operationName,
        contextValue: graphqlContext(services, caller, secretKey, true),
      };
    },
    onNext: (_ctx, _id, _payload, _args, result: ExecutionResult) =>
      result.errors ? { ...result, errors: result.errors.map((error) => formatError(error, log)) } : undefined,
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error, log)),
  });
  return function socketHandler(this: FastifyInstance, socket: WebSocket, request: FastifyRequest): void {
    handler.call(this, socket, request);
    // graphql-ws writes any socket error to the console as its own bug, and @fastify/websocket logs
    // it as an error; ws closes the socket itself (1009 for a message over the size limit, the
    // client's doing), so these listeners give way to one that logs only the unexpected, as a warning.
    socket.removeAllListeners('error');
    socket.on('error', (error: Error & { code?: string }) => {
      if (error.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') log.warn({ err: error }, 'graphql-ws socket failed');
    });
  };
}
