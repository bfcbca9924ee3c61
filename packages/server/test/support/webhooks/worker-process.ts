// A delivery worker in a process of its own, so a test can kill it with SIGKILL mid-attempt.
// Environment: WORKER_DATABASE_URL, WORKER_SCHEMA, WORKER_SECRET_KEY, WORKER_LEASE_MS; NODE_EXTRA_CA_CERTS trusts the test CA.
import { connectDb } from '../../../src/db/connect.js';
import { systemClock } from '../../../src/platform/clock.js';
import { DeliveryWorker } from '../../../src/webhooks/worker.js';

const db = await connectDb({ databaseUrl: process.env.WORKER_DATABASE_URL, searchPath: process.env.WORKER_SCHEMA, poolSize: 4 });
const worker = await DeliveryWorker.start({
  db,
  clock: systemClock,
  config: { secretKey: process.env.WORKER_SECRET_KEY ?? '', webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 100, 100, 100, 100], webhookAllowPrivate: true },
  leaseMs: Number(process.env.WORKER_LEASE_MS ?? 2000),
  pollIntervalMs: 100,
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker.stop().then(() => db.close()).then(() => process.exit(0));
});
