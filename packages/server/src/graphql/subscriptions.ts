import type { FastifyBaseLogger } from 'fastify';
import { type ExecutionResult, getOperationAST, GraphQLError, type GraphQLSchema, parse, validate } from 'graphql';
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
import { limits, overLimit, tooComplex } from './limits.js';

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
};

export interface SubscriptionDeps {
  schema: GraphQLSchema;
  services: Services;
  auth: AuthOptions;
  secretKey: string;
  log: FastifyBaseLogger;
}

function closeFor(error: unknown, close: (code: number, reason: string) => void): void {
  if (error instanceof ApiError && closeCodes[error.code]) close(closeCodes[error.code]!, error.message);
  else close(CloseCode.InternalServerError, 'Internal server error');
}

/**
 * graphql-ws's server (the protocol's reference implementation) on @fastify/websocket, because it
 * lets the connection close with the protocol's 4401/4403 codes; mercurius' own WebSocket server
 * cannot choose a close code for a refused connection_init.
 */
export function subscriptionHandler({ schema, services, auth, secretKey, log }: SubscriptionDeps) {
  return makeHandler<{ authorization?: unknown }, Connection>({
    schema,
    onConnect: async (ctx) => {
      const { socket, request } = ctx.extra;
      const fromPayload = ctx.connectionParams?.authorization;
      const authorization = typeof fromPayload === 'string' ? fromPayload : request.headers.authorization;
      const close = (code: number, reason: string) => socket.close(code, reason);
      try {
        ctx.extra.caller = await authenticate(authorization, auth);
      } catch (error) {
        if (!(error instanceof ApiError)) log.error({ err: error }, 'graphql-ws connection failed');
        closeFor(error, close);
        return false;
      }
      ctx.extra.recheck = setInterval(() => {
        checkGrant(authorization, auth).catch((error: unknown) => closeFor(error, close));
      }, recheckEveryMs);
      return true;
    },
    onClose: (ctx) => clearInterval(ctx.extra.recheck),
    onSubscribe: (ctx, _id, payload) => {
      const caller = ctx.extra.caller!;
      if (payload.query.length > limits.querySize) return [tooComplex(`The query is longer than ${limits.querySize} characters.`)];
      let document;
      try {
        document = parse(payload.query);
      } catch (error) {
        return [error as GraphQLError];
      }
      const problems = validate(schema, document);
      if (problems.length > 0) return problems;
      if (getOperationAST(document, payload.operationName)?.operation !== 'subscription') {
        return [new GraphQLError('Send queries and mutations over HTTP; this socket carries subscriptions.')];
      }
      const refusal = overLimit(schema, document, payload.variables ?? {});
      if (refusal) return [refusal];
      return {
        schema,
        document,
        variableValues: payload.variables,
        operationName: payload.operationName,
        contextValue: graphqlContext(services, caller, secretKey, true),
      };
    },
    onNext: (_ctx, _id, _payload, _args, result: ExecutionResult) =>
      result.errors ? { ...result, errors: result.errors.map((error) => formatError(error, log)) } : undefined,
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error, log)),
  });
}
