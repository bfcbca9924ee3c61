import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startJobLoop } from '../../../server/src/data/jobs.js';
import type { Clock } from '../../../server/src/platform/clock.js';
import { DeliveryWorker } from '../../../server/src/webhooks/worker.js';
import { aiConfigFor, dropProjectData } from '../../../server/test/support/ai.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from '../../../server/test/support/app.js';
import { type FakeLlm, startFakeLlm } from '../../../server/test/support/fake-llm.js';
import { Receiver } from '../../../server/test/support/webhooks/receiver.js';
import { testTls } from '../../../server/test/support/webhooks/tls.js';

/** A whole Vigil on loopback for the client: API, background jobs, webhook worker, a fake AI provider and an HTTPS receiver. */
export interface ClientTestServer {
  t: TestApp;
  org: TestOrg;
  /** `{site}/api/v1`, what the client takes as baseUrl. */
  baseUrl: string;
  fake: FakeLlm;
  receiver: Receiver;
  close(): Promise<void>;
}

export interface ClientTestServerOptions {
  clock?: Clock;
  /** false: no AI provider configured, so POST /chat answers 503 SERVICE_UNAVAILABLE. */
  ai?: boolean;
}

export async function startClientTestServer(options: ClientTestServerOptions = {}): Promise<ClientTestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-client-'));
  const fake = await startFakeLlm();
  const receiver = await Receiver.start();
  const t = await startTestApp('pglite', {
    clock: options.clock,
    config: { ...(options.ai === false ? {} : aiConfigFor(fake)), dataDir, webhookAllowPrivate: true, connectionsAllowPrivate: true },
  });
  const org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
  const jobs = await startJobLoop([t.app.services.imports, t.app.services.exports], {
    db: t.database.db,
    idleMs: 20,
    onError: (runner, error) => console.error(runner, error),
  });
  const worker = await DeliveryWorker.start({
    db: t.database.db,
    clock: t.clock,
    config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 60_000], webhookAllowPrivate: true },
    ca: [testTls().ca],
    pollIntervalMs: 50,
  });
  return {
    t,
    org,
    baseUrl: `${t.baseUrl}/api/v1`,
    fake,
    receiver,
    async close() {
      await worker.stop();
      await jobs.stop();
      const projects = await t.database.db.query<{ id: string }>('SELECT id FROM projects');
      await dropProjectData(t, projects.map((project) => project.id));
      await t.close();
      await receiver.close();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
