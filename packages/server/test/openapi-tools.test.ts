import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobLoop, startJobLoop } from '../src/data/jobs.js';
import { startTestApp, type TestApp } from './support/app.js';
import { dropProjectSchemas } from './support/data.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const clientDir = resolve(import.meta.dirname, '../test-fixtures/openapi-client');
const bin = (name: string) => join(root, 'node_modules/.bin', name);

type UploadAndExport = (
  baseUrl: string,
  apiKey: string,
  projectId: string,
  csv: string,
) => Promise<{ rowCount: number; columns: string[]; fileName: string | null; disposition: string | null; text: string }>;

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

// The document does not depend on the database, so one database kind is enough here.
describe('the OpenAPI document as third-party tools read it', () => {
  let t: TestApp;
  let document: Record<string, unknown>;
  let work: string;
  let jobs: JobLoop;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'vigil-openapi-'));
    t = await startTestApp('pglite', { config: { dataDir: work } });
    jobs = await startJobLoop([t.app.services.exports], { db: t.database.db, idleMs: 20, onError: (_runner, error) => console.error(error) });
    document = (await t.request<Record<string, unknown>>('GET', 'openapi.json')).body;
  });
  afterAll(async () => {
    await jobs.stop();
    await dropProjectSchemas(t);
    await t.close();
    await rm(work, { recursive: true, force: true });
    await rm(join(clientDir, 'schema.d.ts'), { force: true });
  });

  it("passes Redocly's recommended ruleset with no error and no warning", async () => {
    const file = join(work, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const lint = await run(bin('redocly'), ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 10 * 1024 * 1024,
    }).catch((failure: { stdout: string }) => failure);
    const report = JSON.parse(lint.stdout) as RedoclyReport;
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('gives openapi-typescript types with which a client uploads a CSV and downloads its export without a cast', async () => {
    await writeFile(join(clientDir, 'schema.d.ts'), astToString(await openapiTS(JSON.stringify(document))));
    const typecheck = await run(bin('tsc'), ['-p', clientDir, '--noEmit']).catch((failure: { stdout: string }) => failure);
    expect(typecheck.stdout).toBe('');

    const org = await t.createOrg('enterprise');
    const project = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Sales' } });
    // By path, so that the repository's typecheck does not follow it into the generated schema.d.ts.
    const { uploadAndExport } = (await import(join(clientDir, 'flow.ts'))) as { uploadAndExport: UploadAndExport };
    const result = await uploadAndExport(t.baseUrl, org.apiKey, project.body.data.id, 'region,amount\nnorth,10\nsouth,20.5\n');
    expect(result.rowCount).toBe(2);
    expect(result.columns).toEqual(['region:text', 'amount:numeric']);
    expect(result.disposition).toContain(`filename="${result.fileName}"`);
    expect(result.text.trim().split(/\r?\n/)).toEqual(['region,amount', 'north,10', 'south,20.5']);
  });
});
