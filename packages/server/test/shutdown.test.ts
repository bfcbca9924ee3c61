import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp, type TestOrg } from './support/app.js';
import {
  documentedStarts,
  type Env,
  requestInFlight,
  runCliJson,
  type ServerProcess,
  type StartCommand,
  startServerProcess,
  tempDataDir,
} from './support/processes.js';

/** Sends raw HTTP/1.1 on one socket and collects everything the server writes back until it closes. */
function rawConnection(baseUrl: string) {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { connected, write: (text: string) => socket.write(text), closed, received: () => received };
}

/** Runs `work` on a server process started with `env` on a fresh migrated data directory, removed afterwards. */
async function withServerProcess(env: Env, work: (server: ServerProcess, env: Env) => Promise<void>, command?: StartCommand): Promise<void> {
  const data = await tempDataDir({ migrated: true });
  const withData = { ...env, VIGIL_DATA_DIR: data.dir };
  try {
    await work(await startServerProcess(withData, command), withData);
  } finally {
    await data.remove();
  }
}

describe('a request that arrives while the server drains', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  it('is refused with 503 SERVICE_UNAVAILABLE in the error format, and the request in flight still finishes', async () => {
    const connection = rawConnection(t.baseUrl);
    await connection.connected;
    const payload = JSON.stringify({ name: 'Finished during the drain' });
    connection.write(
      `POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n${payload.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = t.app.close();
    // The rest of the body, then a second request on the same kept-alive connection.
    connection.write(`${payload.slice(5)}GET /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.apiKey}\r\n\r\n`);
    const text = await connection.closed;
    await closing;
    const responses = text.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 201 /);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503 /);
    expect(responses[1]).toMatch(/\r\nretry-after: 1\r\n/i);
    const body = JSON.parse(responses[1].slice(responses[1].indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toEqual({ code: 'SERVICE_UNAVAILABLE', error: expect.stringContaining('shutting down'), requestId: expect.stringMatching(/^req_/) });
  });
});

describe('a clean stop with a connection that carries no request', () => {
  it('ends the connection instead of waiting for its client to give up', async () => {
    const t = await startTestApp('pglite');
    try {
      // What a browser's speculative connection or an HTTP client pool's spare looks like: connected, silent.
      const unused = rawConnection(t.baseUrl);
      await unused.connected;
      const closing = t.app.close();
      expect(await unused.closed).toBe('');
      await closing;
    } finally {
      await t.close();
    }
  });
});

describe.each(Object.keys(documentedStarts))('SIGTERM to the process `%s` starts', (way) => {
  it('drains the request in flight and exits 0, leaving no server behind', async () => {
    await withServerProcess(
      {},
      async (server, env) => {
        const { apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Stops', '--plan', 'business'], env);
        const inFlight = requestInFlight(server.url, apiKey, 'In flight at SIGTERM');
        await inFlight.connected;
        await new Promise((resolve) => setTimeout(resolve, 300));
        const exit = server.stop('SIGTERM');
        await server.waitForOutput(/SIGTERM received/);
        inFlight.finish();
        expect((await inFlight.response).status).toBe(201);
        expect((await exit).code).toBe(0);
        // Nothing answers any more: the server itself stopped, not only the npm process in front of it.
        const after = await fetch(`${server.url}/healthz`).then((response) => response.status, () => 'refused');
        expect(after).toBe('refused');
      },
      documentedStarts[way],
    );
  }, 120_000);
});

describe('the SIGTERM line', () => {
  it('comes after every log line of the requests answered before it', async () => {
    await withServerProcess({ LOG_LEVEL: 'info' }, async (server) => {
      // Answered just before the signal: its log line is still held for the next chunk when the signal comes.
      const answered = await fetch(`${server.url}/api/v1/alerts`);
      const requestId = answered.headers.get('x-request-id');
      const exit = await server.stop('SIGTERM');
      expect(exit.code).toBe(0);
      const lines = server.output.stdout.split('\n');
      const requestLine = lines.findIndex((line) => line.includes(`"reqId":"${requestId}"`));
      expect(requestLine).toBeGreaterThan(-1);
      expect(lines.findIndex((line) => line.startsWith('SIGTERM received'))).toBeGreaterThan(requestLine);
    });
  }, 120_000);
});

describe('SIGTERM to a server whose standard output nobody reads', () => {
  it('exits 0 within seconds instead of waiting for the output forever, dropping the log lines it holds', async () => {
    await withServerProcess({ LOG_LEVEL: 'info' }, async (server) => {
      // A log shipper that hangs: nothing more is read, and the pipe fills with the requests' log lines.
      server.child.stdout?.pause();
      for (let request = 0; request < 1500; request++) expect((await fetch(`${server.url}/api/v1/alerts`)).status).toBe(401);
      const stoppedAt = Date.now();
      const exit = await server.stop('SIGTERM');
      expect(exit.code).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(20_000);
    });
  }, 120_000);
});
