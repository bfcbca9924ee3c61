// An ingest thread that dies on its first job, as one running out of memory would (ingest-thread.test.ts).
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => {
  throw new Error('out of memory (a test)');
});
