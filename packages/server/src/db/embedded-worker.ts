import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { EmbeddedReply, EmbeddedRequest, EmbeddedWorkerData } from './embedded-messages.js';
import { asEmbeddedError, EmbeddedSessions } from './embedded-sessions.js';
import { startupMessage } from './wire-protocol.js';

/**
 * The embedded database's own thread: PGlite runs here, so its statements never hold the server's
 * event loop, and the main thread can stop one that runs too long by terminating this thread
 * (embedded-thread.ts). The main thread's pg connections speak PostgreSQL's wire protocol to it
 * (embedded-sessions.ts).
 */
const port = parentPort!;
const { directory, image, modules, statementTimeoutMs, running } = workerData as EmbeddedWorkerData;
/**
 * An in-memory database's pages are in memory already (PGlite's MEMFS), so a buffer pool in front
 * of them buys nothing; PostgreSQL's default of 128 MB is zeroed at every start (~0.3 s and 110 MB
 * of fresh pages, for each test database).
 */
const inMemoryBuffers = '16MB';
const reply = (message: EmbeddedReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

try {
  const lite = await PGlite.create(directory, {
    pgliteWasmModule: modules.pglite,
    initdbWasmModule: modules.initdb,
    loadDataDir: image && new Blob([image]),
    startParams: directory ? undefined : [...PGlite.defaultStartParams, '-c', `shared_buffers=${inMemoryBuffers}`],
  });
  const sessions = new EmbeddedSessions(lite, reply, new Float64Array(running), statementTimeoutMs);
  port.on('message', (request: EmbeddedRequest) => sessions.receive(request));
  const greeting = new Uint8Array(lite.execProtocolRawSync(startupMessage({ user: 'postgres', database: 'postgres' })));
  reply({ kind: 'ready', greeting }, [greeting.buffer]);
} catch (error) {
  reply({ kind: 'failedToOpen', error: asEmbeddedError(error) });
  port.close();
}
