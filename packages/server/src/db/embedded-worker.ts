import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { EmbeddedError, EmbeddedReply, EmbeddedRequest, EmbeddedWorkerData } from './embedded-messages.js';

/**
 * The embedded database's own thread: PGlite runs here, so its statements never hold the server's
 * event loop, and the main thread can stop one that runs too long by terminating this thread
 * (embedded.ts). Requests are answered in the order they came, as PGlite runs them one at a time.
 */
const port = parentPort!;
const { directory } = workerData as EmbeddedWorkerData;
const reply = (message: EmbeddedReply) => port.postMessage(message);

function asEmbeddedError(error: unknown): EmbeddedError {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const fields: EmbeddedError['fields'] = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { message: error.message, fields };
}

const unlistens = new Map<string, () => Promise<void>>();

async function run(lite: PGlite, request: EmbeddedRequest): Promise<unknown> {
  switch (request.op) {
    case 'query':
      return (await lite.query(request.sql, request.params as unknown[])).rows;
    case 'exec':
      await lite.exec(request.sql);
      return undefined;
    case 'copyFrom':
      await lite.query(request.sql, [], { blob: new Blob([request.rows]) });
      return undefined;
    case 'copyTo': {
      const result = await lite.query(request.sql);
      return result.blob ? await result.blob.text() : '';
    }
    case 'listen':
      unlistens.set(request.channel, await lite.listen(request.channel, (payload) => reply({ kind: 'notify', channel: request.channel, payload })));
      return undefined;
    case 'unlisten':
      await unlistens.get(request.channel)?.();
      unlistens.delete(request.channel);
      return undefined;
    case 'close':
      await lite.close();
      return undefined;
  }
}

try {
  const lite = await PGlite.create(directory);
  port.on('message', (request: EmbeddedRequest) => {
    run(lite, request).then(
      (result) => reply({ kind: 'done', id: request.id, result }),
      (error: unknown) => reply({ kind: 'failed', id: request.id, error: asEmbeddedError(error) }),
    );
  });
  reply({ kind: 'ready' });
} catch (error) {
  reply({ kind: 'failedToOpen', error: asEmbeddedError(error) });
  port.close();
}
