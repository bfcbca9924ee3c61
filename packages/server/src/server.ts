import { listenForAdmin } from './admin/socket.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { ingestThreads } from './data/ingest-thread.js';
import { startJobLoop } from './data/jobs.js';
import { spoolDirectory, sweepSpoolLeftovers } from './data/upload-spool.js';
import { openRuntime } from './runtime.js';
import { DeliveryWorker } from './webhooks/worker.js';

export interface RunningServer {
  url: string;
  /** Whether any organization exists yet: the start banner invites creating one only when none does. */
  hasOrganizations: boolean;
  stop(): Promise<void>;
}

/** config → db → migrate → app → listen, and the admin socket in embedded mode; upload spool files a crash left are removed. */
export async function startServer(config: Config): Promise<RunningServer> {
  const runtime = await openRuntime(config);
  await sweepSpoolLeftovers(spoolDirectory(config.dataDir), new Date(performance.timeOrigin));
  const app = await buildApp(runtime);
  const log = app.http.log;
  const stopAdmin = config.databaseUrl
    ? undefined
    : await listenForAdmin(config.dataDir, { db: runtime.db, services: app.services, grantsChanged: () => app.grants.forget() });
  if (config.webhookAllowPrivate) {
    log.warn('VIGIL_WEBHOOK_ALLOW_PRIVATE is on: webhooks may target loopback and private addresses over http. Never use this in production.');
  }
  const worker =
    config.role === 'api' ? undefined : await DeliveryWorker.start({ db: runtime.db, clock: runtime.clock, config: runtime.config, log });
  const dataJobs =
    config.role === 'api'
      ? undefined
      : await startJobLoop([app.services.imports, app.services.exports, app.services.datasets, app.services.retention], {
          db: runtime.db,
          idleMs: 1000,
          onError: (runner, error) => log.error({ err: error, runner }, 'data job failed'),
        });
  const url = await app.http.listen({ port: config.port, host: config.host }).catch(async (error: unknown) => {
    await Promise.all([stopAdmin?.(), worker?.stop(), dataJobs?.stop()]);
    await runtime.close();
    if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
    throw new Error(`port ${config.port} on ${config.host} is already in use (another Vigil?); stop what uses it or set PORT to another port`);
  });
  if (config.role !== 'worker') ingestThreads.warm();
  const [{ exists: hasOrganizations }] = await runtime.db.query<{ exists: boolean }>(`SELECT EXISTS (SELECT 1 FROM organizations) AS exists`);
  return {
    url,
    hasOrganizations,
    async stop() {
      await stopAdmin?.();
      await app.close();
      await worker?.stop();
      await dataJobs?.stop();
      await runtime.close();
    },
  };
}
