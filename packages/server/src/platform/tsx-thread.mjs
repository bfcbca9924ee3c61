// A thread started from Vigil's TypeScript sources (threads.ts): tsx's loader first, then the module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.threadModule);
