import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';

/** The raw answer to bytes written on a fresh connection: status, headers and the JSON body. */
async function rawExchange(
  baseUrl: string,
  write: (send: (text: string) => boolean) => Promise<void> | void,
): Promise<{ status: number; headers: string; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  await write((text) => !socket.destroyed && socket.write(text));
  await closed;
  const [head, body] = received.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body) as Record<string, unknown> };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// HTTP-level edges: the database plays no part, so one kind is enough.
describe('HTTP edges answered in the error format', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp('pglite', { config: { requestTimeoutMs: 1500 } });
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  it('a body trickled in a byte at a time is cut off at VIGIL_REQUEST_TIMEOUT_MS with 408', async () => {
    const started = Date.now();
    const answer = await rawExchange(t.baseUrl, async (send) => {
      send(`POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
      for (let i = 0; i < 40 && send(' '); i += 1) await sleep(250);
    });
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ code: 'REQUEST_TIMEOUT', requestId: expect.stringMatching(/^req_/) });
    expect(answer.headers).toContain(`X-Request-Id: ${answer.body.requestId as string}`);
    // Cut well before the 10 s the trickle would take.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an over-long URL is 431 with a body in the error format and a request id', async () => {
    const answer = await rawExchange(t.baseUrl, (send) => {
      send(`GET /api/v1/alerts?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ code: 'HEADERS_TOO_LARGE', error: expect.stringMatching(/URL/), requestId: expect.stringMatching(/^req_/) });
  });

  it('two Authorization headers are refused with 401, whichever comes first', async () => {
    for (const [first, second] of [[org.apiKey, `svc_live_${'0'.repeat(64)}`], [org.apiKey, org.apiKey]]) {
      const answer = await rawExchange(t.baseUrl, (send) => {
        send(`GET /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\nConnection: close\r\n\r\n`);
      });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED', error: 'Send exactly one Authorization header.' });
    }
  });

  it('numbers in the query string are decimal: limit=0x10, 1e1 or " 5" is 422 naming limit', async () => {
    for (const limit of ['0x10', '1e1', '%205', '0b11', '16.0.0']) {
      const response = await t.request<{ details: { field: string; message: string }[] }>('GET', `alerts?limit=${limit}`, { apiKey: org.apiKey });
      expect(response.status, limit).toBe(422);
      expect(response.body.details, limit).toEqual([{ field: 'limit', message: 'must be a decimal number' }]);
    }
    expect((await t.request('GET', 'alerts?limit=16', { apiKey: org.apiKey })).status).toBe(200);
  });
});
