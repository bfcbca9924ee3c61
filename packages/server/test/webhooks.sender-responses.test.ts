import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.js';
import { WebhookSender } from '../src/webhooks/sender.js';

const mebibyte = 1024 * 1024;
const hugeBytes = 16 * mebibyte;

/** How many bytes of /huge the server wrote before the sender dropped the connection; set once it closes. */
let hugeWritten: Promise<number>;

function hugeResponse(response: ServerResponse): void {
  let written = 0;
  hugeWritten = new Promise((resolve) => response.on('close', () => resolve(written)));
  response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(hugeBytes) });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const more = () => {
    while (written < hugeBytes && !response.destroyed) {
      written += chunk.length;
      if (!response.write(chunk)) return response.once('drain', more);
    }
    response.end();
  };
  more();
}

describe('what a webhook attempt keeps of the response', () => {
  let server: Server;
  let origin: string;
  const sender = new WebhookSender({ clock: systemClock, timeoutMs: 500, allowPrivate: true, connectionsPerOrigin: 4 });

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      if (request.url === '/nul') return void response.end(`a\u0000b${'y'.repeat(10_000)}`);
      if (request.url === '/huge') return hugeResponse(response);
      // Headers at once, then part of a body, then nothing.
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await sender.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (path: string) => sender.send({ url: `${origin}${path}`, headers: { 'content-type': 'application/json' }, body: '{}' });

  it('keeps the first 4 KiB of the body as text, without NUL characters', async () => {
    const outcome = await send('/nul');
    expect(outcome).toMatchObject({ httpStatus: 200, error: null });
    expect(outcome.responseBody).toBe(`ab${'y'.repeat(4096 - 3)}`);
  });

  it('drops the connection of a huge response instead of reading all of it', async () => {
    const outcome = await send('/huge');
    expect(outcome).toMatchObject({ httpStatus: 200, error: null });
    expect(outcome.responseBody).toBe('x'.repeat(4096));
    expect(await hugeWritten).toBeLessThan(hugeBytes / 2);
  });

  it('records a timeout, with the status it had, when the body stops coming', async () => {
    const outcome = await send('/stalled-body');
    expect(outcome).toMatchObject({ httpStatus: 200, error: 'timeout', responseBody: null });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(450);
  });
});
