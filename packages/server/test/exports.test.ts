import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobLoop, startJobLoop } from '../src/data/jobs.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject, type Dataset, dropProjectSchemas, type ErrorBody, eventually, upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';

interface Export {
  id: string;
  resource: string;
  format: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  error: string | null;
  fileName: string | null;
  sizeBytes: number | null;
  rowCount: number | null;
  completedAt: string | null;
  expiresAt: string | null;
}

describe.each(databaseKinds())('exports on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectId: string;
  let otherProjectId: string;
  let dataset: Dataset;
  let dataDir: string;
  let jobs: JobLoop;
  const clock = new ManualClock('2026-05-01T10:00:00.000Z');

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-exports-'));
    t = await startTestApp(kind, { clock, config: { dataDir } });
    org = await t.createOrg('business');
    other = await t.createOrg('business', { name: 'Other' });
    projectId = await createProject(t, org, 'Shop');
    otherProjectId = await createProject(t, org, 'Second');
    const titles = ['=HYPERLINK("http://evil.example","click")', '+1 more', '-2 drop', '@SUM(A1)', 'Plain, with comma', 'Line\nbreak'];
    for (const [index, title] of titles.entries()) {
      const alert = await t.request<{ data: { id: string } }>('POST', 'alerts', {
        apiKey: org.apiKey,
        body: { projectId: index === 5 ? otherProjectId : projectId, title, severity: index === 0 ? 'critical' : 'low', ...(index === 4 ? { dedupKey: 'disk/sda' } : {}) },
      });
      if (index === 1) await t.request('POST', `alerts/${alert.body.data.id}/resolve`, { apiKey: org.apiKey });
    }
    clock.set('2026-05-01T10:00:07.250Z');
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, title: 'Plain, with comma', severity: 'low', dedupKey: 'disk/sda' } });
    clock.set('2026-05-01T10:00:00.000Z');
    await t.request('POST', 'alerts', { apiKey: other.apiKey, body: { projectId: await createProject(t, other), title: 'not yours', severity: 'low' } });
    dataset = (await upload(t, org.apiKey, projectId, 'sku,price,in_stock,added\nA-1,9.99,true,2026-01-02\n=cmd,-5,false,\n', { query: { name: 'products' } })).body.data;
    for (const [index, question] of ['How many alerts?', 'Top sku?'].entries()) {
      await t.database.db.query(
        `INSERT INTO queries (id, org_id, project_id, question, answer, sql, row_count, tokens, model, status, duration_ms, created_at)
         VALUES ($1, $2, $3, $4, 'Answer', 'SELECT 1', 1, 42, 'test-model', 'completed', 5, $5)`,
        [`qry_01jd3v7f3ygc0x6m8pj6kq2e9${index}`, org.orgId, index === 0 ? projectId : otherProjectId, question, clock.now()],
      );
    }
    jobs = await startJobLoop([t.app.services.imports, t.app.services.exports], { db: t.database.db, idleMs: 20, onError: (_runner, error) => console.error(error) });
  });
  afterAll(async () => {
    await jobs.stop();
    await dropProjectSchemas(t);
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function exported(body: Record<string, unknown>, apiKey = org.apiKey): Promise<Export> {
    const accepted = await t.request<{ data: Export }>('POST', 'exports', { apiKey, body });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body.data).toMatchObject({ status: 'pending', fileName: null, error: null });
    expect(accepted.body.data.id).toMatch(/^exp_[0-9a-z]{26}$/);
    return eventually(async () => {
      const current = (await t.request<{ data: Export }>('GET', `exports/${accepted.body.data.id}`, { apiKey })).body.data;
      return ['completed', 'failed'].includes(current.status) ? current : undefined;
    });
  }

  async function download(id: string) {
    const response = await fetch(`${t.baseUrl}/api/v1/exports/${id}/download`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it('exports alerts as CSV with formula-looking cells escaped, filtered by project and status', async () => {
    const done = await exported({ resource: 'alerts', format: 'csv', projectId });
    expect(done).toMatchObject({ status: 'completed', rowCount: 5, fileName: 'alerts-20260501-100000.csv' });
    expect(Date.parse(done.expiresAt!) - Date.parse(done.completedAt!)).toBe(7 * 24 * 3600 * 1000);
    const file = await download(done.id);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toContain('attachment; filename="alerts-20260501-100000.csv"');
    expect(file.bytes.length).toBe(done.sizeBytes);
    const parsed = Papa.parse<Record<string, string>>(file.bytes.toString('utf8'), { header: true, skipEmptyLines: true });
    expect(parsed.meta.fields).toEqual(['id', 'projectId', 'title', 'description', 'severity', 'status', 'area', 'value', 'threshold', 'assigneeId', 'createdAt', 'updatedAt', 'acknowledgedAt', 'resolvedAt', 'dedupKey', 'occurrences', 'lastSeenAt']);
    expect(parsed.data.map((row) => row.title)).toEqual(["'=HYPERLINK(\"http://evil.example\",\"click\")", "'+1 more", "'-2 drop", "'@SUM(A1)", 'Plain, with comma']);
    expect(parsed.data[0]).toMatchObject({ severity: 'critical', status: 'active', createdAt: '2026-05-01T10:00:00.000Z', resolvedAt: '' });
    expect(parsed.data[0]).toMatchObject({ dedupKey: '', occurrences: '1', lastSeenAt: '2026-05-01T10:00:00.000Z' });
    expect(parsed.data[4]).toMatchObject({ dedupKey: 'disk/sda', occurrences: '2', createdAt: '2026-05-01T10:00:00.000Z', lastSeenAt: '2026-05-01T10:00:07.250Z' });

    const resolved = await exported({ resource: 'alerts', format: 'json', filters: { status: 'resolved' } });
    const rows = JSON.parse((await download(resolved.id)).bytes.toString('utf8')) as { title: string; status: string }[];
    expect(rows.map((r) => [r.title, r.status])).toEqual([['+1 more', 'resolved']]);
  });

  it('exports a dataset as JSON and as an Excel workbook with its types', async () => {
    const json = await exported({ resource: 'dataset', format: 'json', datasetId: dataset.id });
    expect(json).toMatchObject({ status: 'completed', rowCount: 2, fileName: expect.stringMatching(/^products-.*\.json$/) });
    const file = await download(json.id);
    expect(file.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(file.bytes.toString('utf8'))).toEqual([
      { sku: 'A-1', price: 9.99, in_stock: true, added: '2026-01-02' },
      { sku: '=cmd', price: -5, in_stock: false, added: null },
    ]);

    const xlsx = await exported({ resource: 'dataset', format: 'xlsx', datasetId: dataset.id });
    const workbookFile = await download(xlsx.id);
    expect(workbookFile.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(workbookFile.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    expect(sheet.name).toBe('products');
    expect(sheet.getRow(1).values).toEqual([undefined, 'sku', 'price', 'in_stock', 'added']);
    expect(sheet.getRow(2).values).toEqual([undefined, 'A-1', 9.99, true, '2026-01-02']);
    expect(sheet.getRow(3).getCell(2).value).toBe(-5);
  });

  it('exports the AI query history of a project', async () => {
    const done = await exported({ resource: 'history', format: 'csv', projectId });
    expect(done).toMatchObject({ status: 'completed', rowCount: 1 });
    const parsed = Papa.parse<Record<string, string>>((await download(done.id)).bytes.toString('utf8'), { header: true, skipEmptyLines: true });
    expect(parsed.data).toEqual([expect.objectContaining({ question: 'How many alerts?', tokens: '42', model: 'test-model', status: 'completed' })]);
  });

  it('exports a 100k-row dataset, streaming it in batches', async () => {
    const lines = ['n,label'];
    for (let i = 1; i <= 100_000; i += 1) lines.push(`${i},row ${i}`);
    const big = (await upload(t, org.apiKey, projectId, `${lines.join('\n')}\n`, { query: { name: 'big' } })).body.data;
    const done = await exported({ resource: 'dataset', format: 'csv', datasetId: big.id });
    expect(done).toMatchObject({ status: 'completed', rowCount: 100_000 });
    const text = (await download(done.id)).bytes.toString('utf8').trimEnd().split('\r\n');
    expect(text.length).toBe(100_001);
    expect(text[100_000]).toBe('100000,row 100000');
  });

  it('rejects bad requests, keeps exports to their organization and fails when the dataset is gone', async () => {
    const noDataset = await t.request<ErrorBody>('POST', 'exports', { apiKey: org.apiKey, body: { resource: 'dataset', format: 'csv' } });
    expect(noDataset.status).toBe(422);
    expect(noDataset.body.details).toEqual([{ field: 'datasetId', message: 'is required to export a dataset' }]);
    const badEnum = await t.request<ErrorBody>('POST', 'exports', { apiKey: org.apiKey, body: { resource: 'users', format: 'pdf' } });
    expect(badEnum.body.details?.map((d) => d.field).sort()).toEqual(['format', 'resource']);
    const badStatus = await t.request<ErrorBody>('POST', 'exports', { apiKey: org.apiKey, body: { resource: 'alerts', format: 'csv', filters: { status: 'open' } } });
    expect(badStatus.status).toBe(422);
    expect((await t.request('POST', 'exports', { apiKey: other.apiKey, body: { resource: 'dataset', format: 'csv', datasetId: dataset.id } })).status).toBe(404);

    const mine = (await t.request<{ data: Export[] }>('GET', 'exports', { apiKey: org.apiKey })).body.data;
    expect(mine.length).toBeGreaterThan(0);
    for (const path of [`exports/${mine[0].id}`, `exports/${mine[0].id}/download`]) {
      expect((await t.request('GET', path, { apiKey: other.apiKey })).status, path).toBe(404);
    }
    expect((await t.request<{ data: Export[] }>('GET', 'exports', { apiKey: other.apiKey })).body.data).toEqual([]);

    const doomed = (await upload(t, org.apiKey, projectId, 'a\n1\n', { query: { name: 'doomed' } })).body.data;
    await jobs.stop();
    const accepted = await t.request<{ data: Export }>('POST', 'exports', { apiKey: org.apiKey, body: { resource: 'dataset', format: 'csv', datasetId: doomed.id } });
    const early = await t.request<ErrorBody>('GET', `exports/${accepted.body.data.id}/download`, { apiKey: org.apiKey });
    expect(early.status).toBe(409);
    await t.request('DELETE', `datasets/${doomed.id}`, { apiKey: org.apiKey });
    jobs = await startJobLoop([t.app.services.exports], { db: t.database.db, idleMs: 20, onError: () => undefined });
    const failed = await eventually(async () => {
      const current = (await t.request<{ data: Export }>('GET', `exports/${accepted.body.data.id}`, { apiKey: org.apiKey })).body.data;
      return current.status === 'failed' ? current : undefined;
    });
    expect(failed.error).toBe('The dataset was deleted before the export ran.');
  });

  it('deletes files after 7 days; the export then answers 404 for its download', async () => {
    const done = await exported({ resource: 'alerts', format: 'csv' });
    const file = path.join(dataDir, 'exports', `${done.id}.csv`);
    expect(existsSync(file)).toBe(true);
    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    const gone = await t.request<ErrorBody>('GET', `exports/${done.id}/download`, { apiKey: org.apiKey });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toContain('expired');
    await t.app.services.exports.sweep();
    expect(existsSync(file)).toBe(false);
  });
});
