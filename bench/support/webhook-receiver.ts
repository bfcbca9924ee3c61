import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** The receiver of the webhook benchmark: HTTPS on loopback, 200 at once, the body read and dropped. */
const server = createServer(
  { key: readFileSync(process.env.TLS_KEY_FILE!), cert: readFileSync(process.env.TLS_CERT_FILE!), keepAliveTimeout: 60_000 },
  (request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      response.end('ok');
    });
  },
);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
