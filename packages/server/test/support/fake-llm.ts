import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The parts of a chat-completions request the tests look at. */
export interface CompletionRequest {
  model: string;
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }[];
  tools?: { type: string; function: { name: string; description: string; parameters: unknown } }[];
  tool_choice?: unknown;
}

export interface ScriptedReply {
  content?: string | null;
  /** Each becomes a run_sql call unless `name` is given; `arguments` overrides the JSON sent. */
  toolCalls?: { sql?: string; name?: string; arguments?: string }[];
  promptTokens?: number;
  completionTokens?: number;
  /** Leave usage out of the reply, as some local servers do. */
  noUsage?: boolean;
  model?: string;
  /** Answer with this HTTP status and an OpenAI-style error body instead. */
  status?: number;
  delayMs?: number;
  /** Answer only once this settles: a question kept waiting on its provider for as long as a test needs. */
  held?: Promise<void>;
}

export type Step = ScriptedReply | ((request: CompletionRequest) => ScriptedReply);

export interface FakeLlm {
  /** What to give Vigil as AI_BASE_URL. */
  baseUrl: string;
  /** Every request received, in order, with the Authorization header it carried. */
  requests: { body: CompletionRequest; authorization: string | undefined }[];
  /** Queues replies, one per request; a request with nothing queued gets a 500. */
  script(...steps: Step[]): void;
  /** Replies queued but not used. */
  pending(): number;
  reset(): void;
  close(): Promise<void>;
}

const read = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function completion(reply: ScriptedReply, request: CompletionRequest, sequence: number) {
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: `call_${sequence}_${index}`,
    type: 'function',
    function: { name: call.name ?? 'run_sql', arguments: call.arguments ?? JSON.stringify({ sql: call.sql }) },
  }));
  const prompt = reply.promptTokens ?? 100;
  const completionTokens = reply.completionTokens ?? 10;
  return {
    id: `chatcmpl-${sequence}`,
    object: 'chat.completion',
    created: 1_767_225_600,
    model: reply.model ?? request.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    ...(reply.noUsage ? {} : { usage: { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens } }),
  };
}

/** A real HTTP server on loopback speaking OpenAI's chat-completions protocol, replying from a script. */
export async function startFakeLlm(): Promise<FakeLlm> {
  const steps: Step[] = [];
  const requests: FakeLlm['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  let sequence = 0;

  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        return send(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: 'invalid_request_error' } });
      }
      const body = JSON.parse(await read(request)) as CompletionRequest;
      requests.push({ body, authorization: request.headers.authorization });
      const step = steps.shift();
      if (!step) return send(response, 500, { error: { message: 'the fake model has no scripted reply left', type: 'server_error' } });
      const reply = typeof step === 'function' ? step(body) : step;
      sequence += 1;
      const answer = () =>
        reply.status
          ? send(response, reply.status, { error: { message: `scripted failure ${reply.status}`, type: 'server_error' } })
          : send(response, 200, completion(reply, body, sequence));
      if (reply.held) return void reply.held.then(answer);
      if (!reply.delayMs) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, reply.delayMs);
      timers.add(timer);
    })().catch((error: unknown) => send(response, 500, { error: { message: String(error), type: 'server_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...more) => void steps.push(...more),
    pending: () => steps.length,
    reset() {
      steps.length = 0;
      requests.length = 0;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The tool results (role "tool" messages) a request carried, parsed. */
export function toolResults(request: CompletionRequest): { error?: string; rows?: Record<string, unknown>[] }[] {
  return request.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? '{}'));
}
