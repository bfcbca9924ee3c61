import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

export interface GraphqlError {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; details?: { field: string; message: string }[] };
}

export interface GraphqlResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: { data?: T | null; errors?: GraphqlError[] };
}

/** POST /api/graphql over real HTTP, as any GraphQL client sends it. */
export async function graphql<T = Record<string, unknown>>(
  baseUrl: string,
  apiKey: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GraphqlResult<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const response = await fetch(`${baseUrl}/api/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as GraphqlResult<T>['body'] };
}

export interface Subscriber {
  client: Client;
  /** Resolves with the close code once the server closes the socket. */
  closed: Promise<number>;
}

/** A graphql-ws client (the package browsers use) with the key in connection_init, or in the upgrade header. */
export function subscriber(baseUrl: string, apiKey: string, options: { keyIn?: 'payload' | 'header' } = {}): Subscriber {
  const headers = options.keyIn === 'header' ? { authorization: `Bearer ${apiKey}` } : {};
  class Socket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  let onClosed: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/api/graphql`,
    webSocketImpl: Socket,
    connectionParams: options.keyIn === 'header' ? undefined : { authorization: `Bearer ${apiKey}` },
    retryAttempts: 0,
    lazy: false,
    // A refused connection is what some tests expect; `closed` reports it.
    onNonLazyError: () => undefined,
    on: { closed: (event) => onClosed((event as { code: number }).code) },
  });
  return { client, closed };
}

/** The next `count` results of a subscription, then it unsubscribes. */
export function nextResults<T = Record<string, unknown>>(
  client: Client,
  query: string,
  count = 1,
  variables?: Record<string, unknown>,
): Promise<{ data?: T; errors?: GraphqlError[] }[]> {
  return new Promise((resolve, reject) => {
    const results: { data?: T; errors?: GraphqlError[] }[] = [];
    const unsubscribe = client.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          results.push(result as { data?: T; errors?: GraphqlError[] });
          if (results.length === count) {
            unsubscribe();
            resolve(results);
          }
        },
        error: reject,
        complete: () => resolve(results),
      },
    );
  });
}

export interface RawSocket {
  socket: WebSocket;
  /** Every message the server sent, parsed. */
  messages: { id?: string; type: string; payload?: unknown }[];
  /** 'ack' once the connection is accepted, or the close code of a refusal. */
  accepted: Promise<'ack' | number>;
  closed: Promise<number>;
  subscribe(id: string, query: string): void;
}

/** The graphql-transport-ws protocol spoken by hand, for what a client library would not send (floods, huge messages). */
export function rawSocket(baseUrl: string, connectionParams: Record<string, unknown>): RawSocket {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/graphql`, 'graphql-transport-ws');
  const messages: RawSocket['messages'] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  const accepted = new Promise<'ack' | number>((resolve) => {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as RawSocket['messages'][number];
      messages.push(message);
      if (message.type === 'connection_ack') resolve('ack');
    });
    void closed.then(resolve);
  });
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
  return {
    socket,
    messages,
    accepted,
    closed,
    subscribe: (id, query) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } })),
  };
}
