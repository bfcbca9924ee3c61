import { readdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type LoadingDb, loadingDb } from '../src/db/connect.js';
import { DatabaseUnavailable } from '../src/db/unavailable.js';
import type { IngestJob } from '../src/data/ingest-messages.js';
import { IngestThreads, ingestThreads } from '../src/data/ingest-thread.js';
import { ApiError } from '../src/platform/errors.js';
import { ingestThreadsBusy } from '../src/platform/metrics.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject, type Dataset, dropProjectSchemas, eventually, inChunks, upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';

const busyThreads = async (): Promise<number> => (await ingestThreadsBusy.get()).values[0]?.value ?? 0;

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
async function threadNices(): Promise<number[]> {
  const nices: number[] = [];
  for (const task of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${task}/stat`, 'utf8').catch(() => undefined);
    // The command name, in parentheses, may hold spaces: fields are counted after it.
    if (stat) nices.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nices;
}

const csv = (rows: number) => `id,label\n${Array.from({ length: rows }, (_, index) => `${index + 1},row ${index + 1}`).join('\n')}\n`;

interface HeldUpload {
  /** Sends the rest (once, however often it is called) and waits for the answer. */
  finish(): Promise<{ status: number; body: string }>;
}

/** An upload whose client has sent the first half of `file` and holds the rest until `finish`. */
function heldUpload(t: TestApp, apiKey: string, projectId: string, name: string, file: string): HeldUpload {
  const sending = httpRequest(new URL(`${t.baseUrl}/api/v1/projects/${projectId}/datasets?name=${name}`), {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
  });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    sending.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sending.on('error', reject);
  });
  sending.write(file.slice(0, file.length / 2));
  return {
    finish() {
      if (!sending.writableEnded) sending.end(file.slice(file.length / 2));
      return answered;
    },
  };
}

describe.each(databaseKinds())('uploads read on threads of their own, on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let neighbour: TestOrg;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    neighbour = await t.createOrg('business', { name: 'Neighbour', adminEmail: 'neighbour@example.com' });
    projectId = await createProject(t, org);
  });
  afterAll(async () => {
    await dropProjectSchemas(t);
    await t.close();
  });

  it('reads an upload in progress on a thread below the server’s priority, while another organization is answered, and keeps the thread for the next', async () => {
    await upload(t, org.apiKey, projectId, Buffer.from(csv(10)), { query: { name: 'first' } });
    const threadsBefore = (await readdir('/proc/self/task')).length;
    const slow = heldUpload(t, org.apiKey, projectId, 'slow', csv(20_000));
    onTestFinished(() => slow.finish().then(() => undefined));

    await eventually(async () => ((await busyThreads()) === 1 ? true : undefined));
    // The upload's thread, and any idle one kept from uploads before, run 10 below the process's other threads.
    const processNice = os.getPriority();
    expect(new Set(await threadNices())).toEqual(new Set([processNice, Math.min(19, processNice + 10)]));
    const alerts = await t.request<{ data: unknown[] }>('GET', 'alerts', { apiKey: neighbour.apiKey });
    expect(alerts.status).toBe(200);

    const done = await slow.finish();
    expect(done.status).toBe(201);
    expect((JSON.parse(done.body) as { data: Dataset }).data.rowCount).toBe(20_000);
    expect(await busyThreads()).toBe(0);

    for (const name of ['second', 'third', 'fourth']) expect((await upload(t, org.apiKey, projectId, Buffer.from(csv(100)), { query: { name } })).status).toBe(201);
    expect((await readdir('/proc/self/task')).length).toBe(threadsBefore);
  });

  it('loads two uploads of one organization at once; its third waits for one of them, while another organization’s loads at once', async () => {
    const neighbourProject = await createProject(t, neighbour);
    const first = heldUpload(t, org.apiKey, projectId, 'turn_first', csv(2000));
    const second = heldUpload(t, org.apiKey, projectId, 'turn_second', csv(2000));
    try {
      await eventually(async () => ((await busyThreads()) === 2 ? true : undefined));
      let thirdAnswered = false;
      const third = upload(t, org.apiKey, projectId, Buffer.from(csv(100)), { query: { name: 'turn_third' } }).then((response) => {
        thirdAnswered = true;
        return response;
      });

      expect((await upload(t, neighbour.apiKey, neighbourProject, Buffer.from(csv(100)), { query: { name: 'next_door' } })).status).toBe(201);
      expect(thirdAnswered).toBe(false);
      expect(await busyThreads()).toBe(2);

      expect((await first.finish()).status).toBe(201);
      expect((await third).status).toBe(201);
      expect((await second.finish()).status).toBe(201);
    } finally {
      await Promise.all([first.finish(), second.finish()]);
    }
  });

  it('answers 429 with Retry-After to an upload that got no turn within VIGIL_UPLOAD_QUEUE_MS, and keeps nothing of it', async () => {
    const strict = await startTestApp(kind, { config: { uploads: { perOrganization: 1, maxWaitMs: 0 } } });
    let held: HeldUpload | undefined;
    try {
      const owner = await strict.createOrg('business', { rateLimitPerMinute: 100_000 });
      const project = await createProject(strict, owner);
      held = heldUpload(strict, owner.apiKey, project, 'held', csv(2000));
      await eventually(async () => ((await busyThreads()) === 1 ? true : undefined));

      const refused = await upload(strict, owner.apiKey, project, Buffer.from(csv(100)), { query: { name: 'refused' } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body).toMatchObject({
        code: 'RATE_LIMITED',
        error: 'This organization has 1 upload loading already, and none finished within 0 ms; send the file again in a moment.',
      });

      expect((await held.finish()).status).toBe(201);
      const datasets = await strict.request<{ data: Dataset[] }>('GET', `datasets?projectId=${project}`, { apiKey: owner.apiKey });
      expect(datasets.body.data.map((dataset) => dataset.name)).toEqual(['held']);
    } finally {
      // The server closes once every connection is answered.
      await held?.finish();
      await dropProjectSchemas(strict);
      await strict.close();
    }
  });

  describe('a job on a thread', () => {
    const schema = `ingest_thread_${kind}`;
    const job = (table: string): IngestJob => ({ kind: 'csv', spoolDir: '/nonexistent', schema, table });
    const tableExists = async (table: string) =>
      (await t.database.db.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2`, [schema, table])).length === 1;
    afterAll(async () => {
      await t.database.db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });

    it('fails with the very error the main thread raised, a statement’s or the upload’s, leaves no table, and the thread takes the next job', async () => {
      const outage = new DatabaseUnavailable(new Error('connection terminated'));
      const failingCopy: LoadingDb = { ...loadingDb(t.database.db), copyRows: () => Promise.reject(outage) };
      await expect(ingestThreads.run(job('cut_off'), inChunks(csv(50), 8192), failingCopy)).rejects.toBe(outage);
      expect(await tableExists('cut_off')).toBe(false);

      const clientGone = new Error('aborted');
      async function* abandoned(): AsyncGenerator<Buffer> {
        yield* inChunks(csv(50), 8192);
        throw clientGone;
      }
      await expect(ingestThreads.run(job('abandoned'), abandoned(), loadingDb(t.database.db))).rejects.toBe(clientGone);
      expect(await tableExists('abandoned')).toBe(false);

      const loaded = await ingestThreads.run(job('loaded'), inChunks(csv(5000), 8192), loadingDb(t.database.db));
      expect(loaded.rowCount).toBe(5000);
      expect(await t.database.db.query(`SELECT id, label FROM ${schema}.loaded WHERE _row_id = 5000`)).toEqual([{ id: 5000, label: 'row 5000' }]);
    });

    it('fails the job when its thread dies, and starts another thread for the next job', async () => {
      let started = 0;
      const threads = new IngestThreads(() => {
        started += 1;
        return new Worker(new URL('./support/dying-thread.mjs', import.meta.url));
      });
      for (const table of ['died', 'died_again']) {
        await expect(threads.run(job(table), inChunks(csv(10), 8192), loadingDb(t.database.db))).rejects.toThrow('The thread reading the upload ended: out of memory (a test).');
      }
      expect(started).toBe(2);
      expect(await busyThreads()).toBe(0);
    });

    it('fails a file the thread refuses with the ApiError naming the line', async () => {
      const refused = ingestThreads.run(job('refused'), inChunks('a,b\n1,2\n3\n', 8192), loadingDb(t.database.db));
      await expect(refused).rejects.toBeInstanceOf(ApiError);
      await expect(refused).rejects.toMatchObject({ status: 422, message: 'Row 3 has 1 fields but the header has 2.' });
      expect(await tableExists('refused')).toBe(false);
    });
  });
});
