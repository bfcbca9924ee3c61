import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { type ExecutionResult, GraphQLError, type GraphQLFormattedError } from 'graphql';
import { parseRequestParams, type RequestParams } from 'graphql-http';
import { type DocumentCache, type PreparedOperation } from './documents.js';
import { formatError } from './errors.js';
import { costMessage, limits, tooComplex } from './limits.js';

type MediaType = 'application/graphql-response+json' | 'application/json';

/** One answer: a GraphQL result and the status GraphQL over HTTP gives it for the accepted media type. */
interface Answer {
  status: number;
  body: { data?: unknown; errors?: GraphQLFormattedError[] };
  headers?: Record<string, string>;
}

const requestError = (message: string, code = 'VALIDATION_ERROR') => new GraphQLError(message, { extensions: { code } });

/**
 * The media type of the answer, from Accept (GraphQL over HTTP): `application/graphql-response+json`
 * when asked for first, `application/json` for it or a wildcard, else none (406).
 */
export function acceptedMediaType(accept: string | undefined): MediaType | undefined {
  for (const range of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...parameters] = range.split(';');
    const charset = parameters.find((parameter) => parameter.startsWith('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8' && charset !== 'charset=utf8') continue;
    if (type === 'application/graphql-response+json') return type;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json';
  }
  return undefined;
}

/** Apollo's automatic persisted queries: a hash without the query, which this server does not keep. */
function persistedQueryHash(params: { query?: unknown; extensions?: unknown }): boolean {
  const extensions = typeof params.extensions === 'string' ? safeJson(params.extensions) : params.extensions;
  return (params.query === undefined || params.query === null) && typeof extensions === 'object' && extensions !== null && 'persistedQuery' in extensions;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface HttpDeps {
  documents: DocumentCache;
  context(request: FastifyRequest): unknown;
}

/**
 * GraphQL over HTTP on one Fastify route, written against the spec and checked by the reference
 * implementation's audit (graphql-http's serverAudits, in the test suite). graphql-http parses the
 * request parameters; preparing (limits before validation) and running are documents.ts'. A JSON
 * array is a batch of up to `limits.batch` operations whose costs are summed.
 */
export class GraphqlHttp {
  constructor(private readonly deps: HttpDeps) {}

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const mediaType = acceptedMediaType(request.headers.accept);
    if (!mediaType) {
      await reply.status(406).header('accept', 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8').send();
      return;
    }
    if (request.method === 'POST' && Array.isArray(request.body)) return this.batch(request, reply, request.body as unknown[]);
    const answer = await this.single(request, request.body, mediaType);
    await reply
      .status(answer.status)
      .headers(answer.headers ?? {})
      .type(`${mediaType}; charset=utf-8`)
      .send(answer.body);
  }

  private async batch(request: FastifyRequest, reply: FastifyReply, operations: unknown[]): Promise<void> {
    const log = request.log;
    const refuseAll = (error: GraphQLError) => operations.map(() => ({ errors: [formatError(error, log)] }));
    if (operations.length === 0) return void (await reply.status(400).send({ errors: [formatError(requestError('A batch holds at least one operation.'), log)] }));
    if (operations.length > limits.batch) {
      return void (await reply.send(refuseAll(tooComplex(`A batch may hold at most ${limits.batch} operations; this one has ${operations.length}.`))));
    }
    const prepared = await Promise.all(operations.map((operation) => this.prepare(request, operation)));
    const cost = prepared.reduce((sum, each) => sum + ('cost' in each ? each.cost : 0), 0);
    if (cost > limits.cost) return void (await reply.send(refuseAll(tooComplex(costMessage(cost, 'The batch')))));
    const answers: Answer['body'][] = [];
    for (const each of prepared) answers.push((await this.run(request, each, 'application/json')).body);
    await reply.type('application/json; charset=utf-8').send(answers);
  }

  private async single(request: FastifyRequest, body: unknown, mediaType: MediaType): Promise<Answer> {
    return this.run(request, await this.prepare(request, body), mediaType);
  }

  /** The operation ready to run, or the answer that refuses it. */
  private async prepare(request: FastifyRequest, body: unknown): Promise<PreparedOperation | Answer> {
    const log = request.log;
    const refuse = (error: GraphQLError, status?: number): Answer => ({ status: status ?? 0, body: { errors: [formatError(error, log)] } });
    const raw = request.method === 'GET' ? Object.fromEntries(new URLSearchParams(request.url.split('?')[1] ?? '')) : body;
    if (typeof raw === 'object' && raw !== null && persistedQueryHash(raw as Record<string, unknown>)) {
      return refuse(requestError('PersistedQueryNotSupported: send the query itself; this server keeps no persisted queries.', 'PERSISTED_QUERY_NOT_SUPPORTED'));
    }
    let params: RequestParams;
    try {
      const parsed = await parseRequestParams({
        method: request.method,
        url: request.url,
        headers: { 'content-type': 'application/json', ...request.headers },
        body: (typeof body === 'string' ? JSON.stringify(body) : body) as Record<string, unknown> | null,
        raw: request,
        context: undefined,
      });
      if (!('query' in parsed)) return refuse(requestError('The request is not a GraphQL request.'), parsed[1].status);
      params = parsed;
    } catch (error) {
      return refuse(requestError(`${(error as Error).message}: send {"query": "…", "variables": {…}, "operationName": "…"}.`), 400);
    }
    const prepared = this.deps.documents.prepare({ query: params.query, operationName: params.operationName, variables: params.variables });
    if (Array.isArray(prepared)) return { status: 0, body: { errors: prepared.map((error: GraphQLError) => formatError(error, log)) } };
    const operation = prepared as PreparedOperation;
    if (operation.operation === 'subscription') return refuse(requestError('Subscriptions are served over WebSocket (graphql-transport-ws) on this path, not over HTTP.'));
    if (operation.operation === 'mutation' && request.method === 'GET') {
      return { ...refuse(requestError('Only queries may be sent with GET; send mutations with POST.'), 405), headers: { allow: 'POST' } };
    }
    return operation;
  }

  private async run(request: FastifyRequest, prepared: PreparedOperation | Answer, mediaType: MediaType): Promise<Answer> {
    // A refusal before execution: 400 in graphql-response+json, 200 in application/json, unless it has its own status.
    if ('body' in prepared) return { ...prepared, status: prepared.status || (mediaType === 'application/json' ? 200 : 400) };
    const result: ExecutionResult = await prepared.execute(this.deps.context(request));
    const log: FastifyBaseLogger = request.log;
    const errors = result.errors?.map((error) => formatError(error, log));
    // No data: the variables did not fit the operation, a request error like the others.
    const status = 'data' in result || mediaType === 'application/json' ? 200 : 400;
    return { status, body: { ...('data' in result ? { data: result.data } : {}), ...(errors ? { errors } : {}) } };
  }
}
