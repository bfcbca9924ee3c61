import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker thread inherits no loader on Node 20: a thread of TypeScript sources starts here, which registers tsx first. */
const tsxEntry = new URL('./tsx-thread.mjs', import.meta.url);

/**
 * A worker thread running the module `name` (without extension) next to `callerUrl`: the
 * caller's own extension tells whether Vigil runs from its TypeScript sources (npm start, the
 * CLI, the tests), in which case the thread goes through tsx.
 */
export function startThread(name: string, callerUrl: string, options: WorkerOptions = {}): Worker {
  const fromSources = callerUrl.endsWith('.ts');
  const module = new URL(`${name}${fromSources ? '.ts' : '.js'}`, callerUrl);
  if (!fromSources) return new Worker(module, options);
  return new Worker(tsxEntry, { ...options, workerData: { ...options.workerData, threadModule: module.href } });
}
