import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** How long the slow path (support/webhook-backlog.ts) takes to answer. */
const slowMs = 50;

/** The receiver of the webhook benchmark: HTTPS on loopback, 200 at once (`/slow`: after 50 ms), the body read and dropped. */
const server = createServer(
  { key: readFileSync(process.env.TLS_KEY_FILE!), cert: readFileSync(process.env.TLS_CERT_FILE!), keepAliveTimeout: 60_000 },
  (request, response) => {
    request.resume();
    request.on('end', () => {
      const answer = () => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
        response.end('ok');
      };
      if (request.url === '/slow') setTimeout(answer, slowMs);
      else answer();
    });
  },
);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
