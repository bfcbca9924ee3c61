import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type RunningServer, startServer, vigilServe } from './support/processes.js';
import { type BenchMode, fullRun, sized } from './support/mode.js';
import { assertAllAnswered, type LoadResult, pacedLoadApart } from './support/load.js';
import { type SeededOrg, seedAlerts } from './support/seed.js';

const secretKey = 'bench-secret-key-0123456789abcdef0123456789';
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const columnsSql =
  'id bigint, customer text, amount numeric, paid boolean, sold_on date, sold_at timestamptz, region text, units bigint, discount numeric, note text';

/** 100,000 rows of ten columns (fewer in a smoke run), one of each type Vigil infers and a quoted text with a comma. */
async function writeCsv(file: string, rowCount: number): Promise<void> {
  const out = createWriteStream(file);
  const regions = ['north', 'south', 'east', 'west'];
  let chunk = 'id,customer,amount,paid,sold_on,sold_at,region,units,discount,note\n';
  for (let i = 1; i <= rowCount; i++) {
    const day = String((i % 28) + 1).padStart(2, '0');
    chunk +=
      `${i},Customer ${i % 5000},${((i * 7.31) % 1000).toFixed(2)},${i % 3 === 0 ? 'true' : 'false'},2026-03-${day},` +
      `2026-03-${day}T${String(i % 24).padStart(2, '0')}:15:00Z,${regions[i % 4]},${i % 97},0.${i % 10},"note ${i}, with a comma"\n`;
    if (chunk.length > 1 << 20 || i === rowCount) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** A million narrow rows (about 30 MiB; fewer in a smoke run), for the export whose memory must stay flat. */
async function writeMillionCsv(file: string, millionRows: number): Promise<void> {
  const out = createWriteStream(file);
  let chunk = 'n,label,amount\n';
  for (let i = 1; i <= millionRows; i++) {
    chunk += `${i},item ${i % 1000},${(i % 10_000) / 100}\n`;
    if (chunk.length > 1 << 20 || i === millionRows) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** Samples the server's resident memory every 20 ms while `work` runs; returns the work's result and the peak. */
async function withPeakRss<T>(server: RunningServer, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = server.rssBytes();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, server.rssBytes());
      await sleep(20);
    }
  })();
  try {
    return { result: await work(), peak };
  } finally {
    sampling = false;
    await sampler;
    peak = Math.max(peak, server.rssBytes());
  }
}

async function uploadFile(baseUrl: string, apiKey: string, projectId: string, file: string, name: string): Promise<{ rowCount: number; id: string }> {
  const response = await fetch(`${baseUrl}/api/v1/projects/${projectId}/datasets?name=${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/csv' },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const body = (await response.json()) as { data: { id: string; rowCount: number } };
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
  return body.data;
}

async function exportDataset(baseUrl: string, apiKey: string, datasetId: string, format: string): Promise<{ seconds: number; sizeBytes: number }> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const started = performance.now();
  const accepted = (await (await fetch(`${baseUrl}/api/v1/exports`, { method: 'POST', headers, body: JSON.stringify({ resource: 'dataset', format, datasetId }) })).json()) as {
    data: { id: string };
  };
  for (;;) {
    const current = (await (await fetch(`${baseUrl}/api/v1/exports/${accepted.data.id}`, { headers })).json()) as {
      data: { status: string; sizeBytes: number; error: string | null };
    };
    if (current.data.status === 'completed') return { seconds: (performance.now() - started) / 1000, sizeBytes: current.data.sizeBytes };
    if (current.data.status === 'failed') throw new Error(`export failed: ${current.data.error}`);
    await sleep(10);
  }
}

function psql(url: string, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', command], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql failed: ${stderr.trim()}`))));
  });
}

/** The baseline: psql's \copy of the same file into a table of the same ten types, on the same PostgreSQL. */
async function psqlCopySeconds(url: string, file: string): Promise<number> {
  await psql(url, `DROP TABLE IF EXISTS bench_copy; CREATE TABLE bench_copy (${columnsSql})`);
  const started = performance.now();
  await psql(url, `\\copy bench_copy FROM '${file}' WITH (FORMAT csv, HEADER true)`);
  const seconds = (performance.now() - started) / 1000;
  await psql(url, 'DROP TABLE bench_copy');
  return seconds;
}

interface IngestDatabase {
  url: string;
  serverVersion: string;
  drop(): Promise<void>;
}

/**
 * DATABASE_URL when set; else a database of this part's own on the local PostgreSQL, made afresh
 * and dropped afterwards, so that other benchmark parts running meanwhile cannot disturb it.
 */
async function ingestDatabase(): Promise<IngestDatabase> {
  const configured = process.env.DATABASE_URL;
  const url = new URL(configured ?? 'postgres://postgres@127.0.0.1:5432/vigil_bench_ingest');
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).href });
  await admin.connect();
  const name = pg.escapeIdentifier(url.pathname.slice(1));
  if (!configured) {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  }
  const { rows } = await admin.query<{ server_version: string }>('SHOW server_version');
  return {
    url: url.href,
    serverVersion: rows[0].server_version,
    async drop() {
      if (!configured) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

interface NeighbourLatency {
  alone: LoadResult;
  /** While organization A uploads back to back, one at a time and then `parallel` at a time. */
  during: { parallel: number; load: LoadResult; uploads: number; peakRss: number }[];
}

/** Simultaneous uploads of organization A in the last phase: four times what it may load at once. */
const simultaneousUploads = 8;

/**
 * What one organization's uploads cost another's requests: organization B's `GET /alerts` at a
 * steady 50 per second (from a process of its own), alone, then while organization A uploads
 * `file` back to back, one at a time and `simultaneousUploads` at a time.
 */
async function neighbourLatency(server: RunningServer, uploader: SeededOrg, file: string, neighbour: SeededOrg, seconds: number): Promise<NeighbourLatency> {
  const target = { url: `${server.url}/api/v1/alerts?limit=20`, headers: { authorization: `Bearer ${neighbour.apiKey}` } };
  const alone = await pacedLoadApart(target, 50, 4, seconds, 1);
  const during: NeighbourLatency['during'] = [];
  for (const parallel of [1, simultaneousUploads]) {
    let uploads = 0;
    let uploading = true;
    const uploadingLoops = Array.from({ length: parallel }, async () => {
      while (uploading) await uploadFile(server.url, uploader.apiKey, uploader.projectId, file, `busy_${uploads++}`);
    });
    const { result: load, peak } = await withPeakRss(server, () => pacedLoadApart(target, 50, 4, seconds, 1));
    uploading = false;
    await Promise.all(uploadingLoops);
    during.push({ parallel, load, uploads, peakRss: peak });
  }
  assertAllAnswered("organization B during organization A's uploads", [alone, ...during.map((phase) => phase.load)]);
  return { alone, during };
}

/**
 * Uploads a 100k-row, 10-column CSV to a Vigil server on PostgreSQL (one child process, role all)
 * while sampling the server's RSS, exports the dataset as CSV and JSON through the worker, and
 * compares the upload with psql's \copy of the same file.
 */
export async function runIngestBench(mode: BenchMode = fullRun): Promise<string> {
  const rowCount = sized(mode, 100_000, 2_000);
  const millionRows = sized(mode, 1_000_000, 5_000);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-ingest-'));
  const file = path.join(workDir, 'sales.csv');
  try {
    await writeCsv(file, rowCount);
    const fileBytes = (await stat(file)).size;
    const database = await ingestDatabase();
    const env: Record<string, string> = {
      VIGIL_SECRET_KEY: secretKey,
      VIGIL_DATA_DIR: path.join(workDir, 'vigil-data'),
      VIGIL_ROLE: 'all',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
    };
    const server = await startServer({ name: 'Vigil', ...vigilServe, env, readyPath: '/readyz', logFile: path.join(workDir, 'vigil.log') });
    try {
      const org = await seedAlerts(server.url, env, 0);
      const project = (await (
        await fetch(`${server.url}/api/v1/projects`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Ingest bench' }),
        })
      ).json()) as { data: { id: string } };
      // A small upload first, so the measured one does not pay for loading modules.
      await writeFile(path.join(workDir, 'warm.csv'), 'a,b\n1,x\n');
      await uploadFile(server.url, org.apiKey, project.data.id, path.join(workDir, 'warm.csv'), 'warm');
      const rssBefore = server.rssBytes();
      const started = performance.now();
      const { result: dataset, peak } = await withPeakRss(server, () => uploadFile(server.url, org.apiKey, project.data.id, file, 'sales'));
      const uploadSeconds = (performance.now() - started) / 1000;
      if (dataset.rowCount !== rowCount) throw new Error(`the dataset has ${dataset.rowCount} rows, not ${rowCount}`);
      // The same file once more: the server's code is now compiled for this work, as in a server that takes uploads every day.
      const againStarted = performance.now();
      const again = await uploadFile(server.url, org.apiKey, project.data.id, file, 'sales_again');
      const againSeconds = (performance.now() - againStarted) / 1000;
      if (again.rowCount !== rowCount) throw new Error(`the dataset has ${again.rowCount} rows, not ${rowCount}`);
      const csvExport = await exportDataset(server.url, org.apiKey, dataset.id, 'csv');
      const jsonExport = await exportDataset(server.url, org.apiKey, dataset.id, 'json');
      const copySeconds = await psqlCopySeconds(database.url, file);

      const millionFile = path.join(workDir, 'million.csv');
      await writeMillionCsv(millionFile, millionRows);
      const millionBytes = (await stat(millionFile)).size;
      const beforeMillion = server.rssBytes();
      const millionStarted = performance.now();
      const million = await withPeakRss(server, () => uploadFile(server.url, org.apiKey, project.data.id, millionFile, 'million'));
      const millionUploadSeconds = (performance.now() - millionStarted) / 1000;
      const beforeMillionExport = server.rssBytes();
      if (million.result.rowCount !== millionRows) throw new Error(`the dataset has ${million.result.rowCount} rows, not ${millionRows}`);
      const millionExport = await withPeakRss(server, () => exportDataset(server.url, org.apiKey, million.result.id, 'csv'));
      const neighbour = await neighbourLatency(server, { ...org, projectId: project.data.id }, file, await seedAlerts(server.url, env, 20), sized(mode, 6, 1));
      const ms = (value: number) => `${value.toFixed(2)} ms`;
      const rate = (seconds: number) => Math.round(rowCount / seconds).toLocaleString('en-US');
      return [
        `### Ingest and export (${rowCount.toLocaleString('en-US')} rows × 10 columns)`,
        '',
        `Vigil on PostgreSQL ${database.serverVersion} (${process.env.DATABASE_URL ? 'DATABASE_URL' : 'database vigil_bench_ingest, made for this run'}), one process with VIGIL_ROLE=all; the CSV is ${mib(fileBytes)} MiB.`,
        '',
        '| what | time | rows/s | note |',
        '|---|---|---|---|',
        `| Vigil upload (POST text/csv, streamed, types inferred, COPY) | ${uploadSeconds.toFixed(2)} s | ${rate(uploadSeconds)} | server RSS ${mib(rssBefore)} → peak ${mib(peak)} MiB (+${mib(peak - rssBefore)} MiB) |`,
        `| Vigil upload of the same file again (the upload's code now compiled) | ${againSeconds.toFixed(2)} s | ${rate(againSeconds)} | |`,
        `| baseline: psql \\copy of the same file into the same types | ${copySeconds.toFixed(2)} s | ${rate(copySeconds)} | Vigil takes ${(uploadSeconds / copySeconds).toFixed(2)}× as long (${(againSeconds / copySeconds).toFixed(2)}× again) |`,
        `| Vigil export as CSV (POST → completed) | ${csvExport.seconds.toFixed(2)} s | ${rate(csvExport.seconds)} | ${mib(csvExport.sizeBytes)} MiB file |`,
        `| Vigil export as JSON (POST → completed) | ${jsonExport.seconds.toFixed(2)} s | ${rate(jsonExport.seconds)} | ${mib(jsonExport.sizeBytes)} MiB file |`,
        `| Vigil upload, ${millionRows.toLocaleString('en-US')} rows × 3 columns (${mib(millionBytes)} MiB) | ${millionUploadSeconds.toFixed(2)} s | ${Math.round(millionRows / millionUploadSeconds).toLocaleString('en-US')} | server RSS ${mib(beforeMillion)} → peak ${mib(million.peak)} MiB (+${mib(million.peak - beforeMillion)} MiB) |`,
        `| Vigil export of those ${millionRows.toLocaleString('en-US')} rows as CSV | ${millionExport.result.seconds.toFixed(2)} s | ${Math.round(millionRows / millionExport.result.seconds).toLocaleString('en-US')} | server RSS ${mib(beforeMillionExport)} → peak ${mib(millionExport.peak)} MiB (+${mib(millionExport.peak - beforeMillionExport)} MiB) |`,
        `| organization B's \`GET /alerts\` at 50/s, alone | p50 ${ms(neighbour.alone.p50Ms)} | p99 ${ms(neighbour.alone.p99Ms)} | |`,
        ...neighbour.during.map(
          ({ parallel, load, uploads, peakRss }) =>
            `| the same while organization A uploads this file back to back, ${parallel === 1 ? 'one at a time' : `${parallel} at a time`} | p50 ${ms(load.p50Ms)} | p99 ${ms(load.p99Ms)} | ${uploads} uploads meanwhile; server RSS peak ${mib(peakRss)} MiB |`,
        ),
        '',
        `Vigil ÷ psql \\copy: ${(copySeconds / uploadSeconds).toFixed(2)} (first upload), ${(copySeconds / againSeconds).toFixed(2)} (again); target ≥ 0.50.`,
        '',
        `Targets: ingest ≥ 100,000 rows/s on PostgreSQL (${rowCount / uploadSeconds >= 100_000 ? 'met' : 'not met'}), ` +
          `server RSS growth ≤ 100 MiB during the upload (${peak - rssBefore <= 100 * 2 ** 20 ? 'met' : 'not met'}).`,
      ].join('\n');
    } finally {
      await server.stop();
      await database.drop();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
