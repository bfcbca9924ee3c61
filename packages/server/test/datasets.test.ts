import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject, type Dataset, dropProjectSchemas, type ErrorBody, tablesOf, upload, xlsxFile } from './support/data.js';
import { databaseKinds } from './support/databases.js';

interface RowsPage {
  data: Record<string, unknown>[];
  meta: { limit: number; hasMore: boolean; nextCursor: string | null };
}

describe.each(databaseKinds())('datasets on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp(kind, { config: { maxUploadBytes: 4 * 1024 * 1024 } });
    org = await t.createOrg('business');
    other = await t.createOrg('business', { name: 'Other' });
    projectId = await createProject(t, org);
  });
  afterAll(async () => {
    await dropProjectSchemas(t);
    await t.close();
  });

  const rows = (id: string, query = '') => t.request<RowsPage>('GET', `datasets/${id}/rows${query}`, { apiKey: org.apiKey });

  it('stores a CSV with a byte-order mark as a typed table, pages its rows and announces csv.uploaded', async () => {
    const csv = '\uFEFFOrder ID,Customer Name,Amount,Paid,Day,At,Zip\n' +
      '1,Ada,12.50,true,2026-01-02,2026-01-02 03:04:05,00501\n' +
      '2,"Lovelace, Ada",7,no,2026-02-03,2026-01-02T03:04:05.123Z,10001\n' +
      '3,Bob,,yes,,,\n';
    const created = await upload(t, org.apiKey, projectId, csv, { fileName: 'Sales 2026.csv' });
    expect(created.status).toBe(201);
    const dataset = created.body.data;
    expect(dataset).toMatchObject({ projectId, name: 'Sales 2026', tableName: 'sales_2026', status: 'ready', rowCount: 3, source: 'upload' });
    expect(dataset.id).toMatch(/^ds_[0-9a-z]{26}$/);
    expect(dataset.sizeBytes).toBeGreaterThan(0);
    expect(dataset.columns).toEqual([
      { name: 'order_id', originalName: 'Order ID', type: 'integer' },
      { name: 'customer_name', originalName: 'Customer Name', type: 'text' },
      { name: 'amount', originalName: 'Amount', type: 'numeric' },
      { name: 'paid', originalName: 'Paid', type: 'boolean' },
      { name: 'day', originalName: 'Day', type: 'date' },
      { name: 'at', originalName: 'At', type: 'timestamp' },
      { name: 'zip', originalName: 'Zip', type: 'text' },
    ]);

    const first = await rows(dataset.id, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([
      { order_id: 1, customer_name: 'Ada', amount: 12.5, paid: true, day: '2026-01-02', at: '2026-01-02T03:04:05.000Z', zip: '00501' },
      { order_id: 2, customer_name: 'Lovelace, Ada', amount: 7, paid: false, day: '2026-02-03', at: '2026-01-02T03:04:05.123Z', zip: '10001' },
    ]);
    expect(first.body.meta).toMatchObject({ limit: 2, hasMore: true });
    const second = await rows(dataset.id, `?limit=2&cursor=${first.body.meta.nextCursor}`);
    expect(second.body.data).toEqual([{ order_id: 3, customer_name: 'Bob', amount: null, paid: true, day: null, at: null, zip: null }]);
    expect(second.body.meta).toEqual({ limit: 2, hasMore: false, nextCursor: null });

    const typed = await t.database.db.query<{ data_type: string }>(
      `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'sales_2026' AND column_name <> '_row_id' ORDER BY ordinal_position`,
      [`data_${projectId.slice(5)}`],
    );
    expect(typed.map((c) => c.data_type)).toEqual(['bigint', 'text', 'numeric', 'boolean', 'date', 'timestamp with time zone', 'text']);

    const events = await t.database.db.query<{ data: Dataset }>(`SELECT data FROM events WHERE org_id = $1 AND type = 'csv.uploaded'`, [org.orgId]);
    expect(events.map((e) => e.data)).toContainEqual(dataset);

    const listed = await t.request<{ data: Dataset[] }>('GET', `datasets?projectId=${projectId}`, { apiKey: org.apiKey });
    expect(listed.body.data.map((d) => d.id)).toContain(dataset.id);
    expect((await t.request('GET', `datasets/${dataset.id}`, { apiKey: org.apiKey })).body).toEqual({ data: dataset });
  });

  it('reads semicolon and tab separated files with quoted delimiters, line breaks and CRLF endings', async () => {
    const semicolon = 'name;note;qty\r\n"Smith; J.";"two\r\nlines";3\r\nDoe;"say ""hi""";4\r\n';
    const a = await upload(t, org.apiKey, projectId, semicolon, { fileName: 'semi.csv', fields: { name: 'Semicolons', types: 'qty:numeric' } });
    expect(a.status).toBe(201);
    expect(a.body.data.name).toBe('Semicolons');
    expect(a.body.data.columns.map((c) => c.type)).toEqual(['text', 'text', 'numeric']);
    expect((await rows(a.body.data.id)).body.data).toEqual([
      { name: 'Smith; J.', note: 'two\r\nlines', qty: 3 },
      { name: 'Doe', note: 'say "hi"', qty: 4 },
    ]);
    const tab = await upload(t, org.apiKey, projectId, 'city\tpopulation\nParis\t2100000\nLyon\t520000\n', { contentType: 'text/tab-separated-values', query: { name: 'cities' } });
    expect(tab.status).toBe(201);
    expect(tab.body.data).toMatchObject({ name: 'cities', rowCount: 2 });
    expect((await rows(tab.body.data.id)).body.data).toEqual([{ city: 'Paris', population: 2100000 }, { city: 'Lyon', population: 520000 }]);
  });

  it('reads an .xlsx made by exceljs: the first sheet, or the one named by ?sheet=', async () => {
    const workbook = await xlsxFile({
      Summary: [['Region', 'Revenue', 'Closed', 'Signed on'], ['North', 1250.5, true, new Date('2026-03-01T00:00:00Z')], ['South', 980, false, new Date('2026-03-02T00:00:00Z')]],
      Detail: [['Item', 'Count'], ['bolt', 10], ['nut', 20], ['gear', 5]],
    });
    const first = await upload(t, org.apiKey, projectId, workbook, {
      fileName: 'report.xlsx',
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    expect(first.status).toBe(201);
    expect(first.body.data.columns.map((c) => [c.name, c.type]), JSON.stringify(first.body.data.columns)).toEqual([
      ['region', 'text'],
      ['revenue', 'numeric'],
      ['closed', 'boolean'],
      ['signed_on', 'date'],
    ]);
    expect((await rows(first.body.data.id)).body.data[0]).toEqual({ region: 'North', revenue: 1250.5, closed: true, signed_on: '2026-03-01' });

    const detail = await upload(t, org.apiKey, projectId, workbook, {
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      query: { sheet: 'Detail', name: 'detail' },
    });
    expect(detail.status).toBe(201);
    expect(detail.body.data).toMatchObject({ rowCount: 3, columns: [{ name: 'item', type: 'text' }, { name: 'count', type: 'integer' }] });
    const missing = await upload<ErrorBody>(t, org.apiKey, projectId, workbook, { fileName: 'r.xlsx', query: { sheet: 'Nope' } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toContain('no sheet named "Nope"');
  });

  it('reads formulas by their result, rich text as its text, times, shared strings, and skips empty rows, whatever the order of the zip', async () => {
    // workbook.xlsx.writeBuffer() writes shared strings and, at times, stores a sheet before xl/workbook.xml.
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Notes').addRow(['note']);
    const sheet = workbook.addWorksheet('Mixed');
    sheet.addRow(['label', 'double', 'at', 'flag']);
    sheet.addRow([{ richText: [{ text: 'bold', font: { bold: true } }, { text: ' and plain' }] }, { formula: '2*2', result: 4 }, new Date('2026-03-01T10:30:00Z'), { formula: 'TRUE()', result: true }]);
    sheet.addRow([]);
    sheet.addRow(['after a gap', { formula: 'B2+1', result: 5 }, new Date('2026-03-02T00:00:00Z'), false]);
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    const created = await upload(t, org.apiKey, projectId, file, { fileName: 'mixed.xlsx', query: { sheet: 'Mixed' } });
    expect(created.status).toBe(201);
    expect(created.body.data.columns.map((c) => [c.name, c.type])).toEqual([
      ['label', 'text'],
      ['double', 'integer'],
      ['at', 'timestamp'],
      ['flag', 'boolean'],
    ]);
    expect((await rows(created.body.data.id)).body.data).toEqual([
      { label: 'bold and plain', double: 4, at: '2026-03-01T10:30:00.000Z', flag: true },
      { label: 'after a gap', double: 5, at: '2026-03-02T00:00:00.000Z', flag: false },
    ]);
  });

  it('widens a column when a later value does not fit the type inferred from the sample, and honours chosen types', async () => {
    const lines = ['code,amount'];
    for (let i = 0; i < 1500; i += 1) lines.push(`${i},${i}`);
    lines.push('x-1,12.5');
    const widened = await upload(t, org.apiKey, projectId, `${lines.join('\n')}\n`, { query: { name: 'widened' } });
    expect(widened.status).toBe(201);
    expect(widened.body.data.columns.map((c) => c.type)).toEqual(['text', 'numeric']);
    expect(widened.body.data.rowCount).toBe(1501);
    const lastRows = Buffer.from('row:1499', 'utf8').toString('base64url');
    expect((await rows(widened.body.data.id, `?cursor=${lastRows}`)).body.data).toEqual([
      { code: '1499', amount: 1499 },
      { code: 'x-1', amount: 12.5 },
    ]);

    const chosen = await upload(t, org.apiKey, projectId, 'id,zip\n1,123\n2,456\n', { query: { name: 'chosen', types: 'zip:text,id:numeric' } });
    expect(chosen.body.data.columns.map((c) => c.type)).toEqual(['numeric', 'text']);
    const wrong = await upload<ErrorBody>(t, org.apiKey, projectId, 'id,n\n1,2\n2,three\n', { query: { name: 'pinned', types: 'n:integer' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toBe('row 3: "three" is not a valid integer for column "n".');
    const badType = await upload<ErrorBody>(t, org.apiKey, projectId, 'id\n1\n', { query: { types: 'id:money' } });
    expect(badType.status).toBe(422);
    expect(badType.body.details).toEqual([{ field: 'types', message: expect.stringContaining('"id:money"') }]);
  });

  it('rejects bad files with 422 naming the line or cell, and leaves no dataset or table behind', async () => {
    const project = await createProject(t, org, 'Rejects');
    const latin1 = Buffer.concat([Buffer.from('name,city\nA,Paris\nB,'), Buffer.from([0x4d, 0xfc, 0x6e, 0x63, 0x68, 0x65, 0x6e]), Buffer.from('\n')]);
    const tooWide = `${Array.from({ length: 501 }, (_, i) => `c${i}`).join(',')}\n${Array.from({ length: 501 }, () => '1').join(',')}\n`;
    const xlsxWithStrayCell = await xlsxFile({ S: [['a', 'b'], [1, 2], [3, 4, 'stray']] });
    const cases: [string, string | Buffer, { contentType?: string; fileName?: string }, string][] = [
      ['empty', '', {}, 'The file is empty.'],
      ['blank header', '\n\n', {}, 'The file is empty.'],
      ['no header', '1,2,3\n4,5,6\n', {}, 'The file has no header'],
      ['ragged', 'a,b\n1,2\n3\n', {}, 'Row 3 has 1 fields but the header has 2.'],
      ['not UTF-8', latin1, {}, 'line 3'],
      ['not a spreadsheet', 'a,b\n1,2\n', { fileName: 'x.xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }, 'not an Excel workbook'],
      ['broken zip', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]), { fileName: 'x.xlsx' }, 'not a readable Excel workbook'],
      ['legacy xls', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), Buffer.alloc(100)]), { fileName: 'x.xls' }, 'Old .xls'],
      ['too many columns', tooWide, {}, 'at most 500'],
      ['stray cell', xlsxWithStrayCell, { fileName: 'x.xlsx' }, 'cell C3 has a value but its column has no header'],
    ];
    for (const [label, file, options, message] of cases) {
      const response = await upload<ErrorBody>(t, org.apiKey, project, file, options);
      expect(response.status, label).toBe(422);
      expect(response.body.code, label).toBe('VALIDATION_ERROR');
      expect(response.body.error, label).toContain(message);
    }
    const noField = await upload<ErrorBody>(t, org.apiKey, project, 'a\n1\n', { fileName: 'a.csv', field: 'upload' });
    expect(noField.status).toBe(422);
    expect(noField.body.error).toContain('"file"');
    const listed = await t.request<{ data: Dataset[] }>('GET', `datasets?projectId=${project}`, { apiKey: org.apiKey });
    expect(listed.body.data).toEqual([]);
    expect(await tablesOf(t, project)).toEqual([]);
  });

  it('answers 413 above VIGIL_MAX_UPLOAD_MB, raw or multipart, and keeps nothing', async () => {
    const project = await createProject(t, org, 'Big');
    const big = `a,b\n${'1234567890,abcdefghij\n'.repeat(200_000)}`;
    for (const options of [{}, { fileName: 'big.csv' }]) {
      const response = await upload<ErrorBody>(t, org.apiKey, project, big, options);
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    }
    expect((await t.request<{ data: Dataset[] }>('GET', `datasets?projectId=${project}`, { apiKey: org.apiKey })).body.data).toEqual([]);
    expect(await tablesOf(t, project)).toEqual([]);
  });

  it('loads a 100k-row file and serves its last page', async () => {
    const lines = ['id,name,amount,day'];
    for (let i = 1; i <= 100_000; i += 1) lines.push(`${i},name ${i},${(i / 4).toFixed(2)},2026-01-${String((i % 28) + 1).padStart(2, '0')}`);
    const created = await upload(t, org.apiKey, projectId, `${lines.join('\n')}\n`, { fileName: 'hundred_k.csv' });
    expect(created.status).toBe(201);
    expect(created.body.data.rowCount).toBe(100_000);
    expect(created.body.data.columns.map((c) => c.type)).toEqual(['integer', 'text', 'numeric', 'date']);
    const cursor = Buffer.from('row:99998', 'utf8').toString('base64url');
    expect((await rows(created.body.data.id, `?cursor=${cursor}`)).body.data).toEqual([
      { id: 99_999, name: 'name 99999', amount: 24999.75, day: '2026-01-12' },
      { id: 100_000, name: 'name 100000', amount: 25000, day: '2026-01-13' },
    ]);
  });

  it('stores long multi-byte values exactly, however they fall across COPY batches', async () => {
    const long = (i: number) => `${'日本語 é ✓ '.repeat(12_000 + i)}${i}`;
    const lines = ['n,note'];
    for (let i = 1; i <= 6; i += 1) lines.push(`${i},"${long(i)}"`);
    for (let i = 7; i <= 9_000; i += 1) lines.push(`${i},"Zürich, ${i} — ok"`);
    const created = await upload(t, org.apiKey, projectId, `${lines.join('\n')}\n`, { fileName: 'long_values.csv' });
    expect(created.status).toBe(201);
    expect(created.body.data.rowCount).toBe(9_000);
    const page = (await rows(created.body.data.id, '?limit=7')).body.data;
    expect(page.map((row) => row.note)).toEqual([...Array.from({ length: 6 }, (_, i) => long(i + 1)), 'Zürich, 7 — ok']);
    const around = Buffer.from('row:3999', 'utf8').toString('base64url');
    expect((await rows(created.body.data.id, `?cursor=${around}&limit=2`)).body.data).toEqual([
      { n: 4000, note: 'Zürich, 4000 — ok' },
      { n: 4001, note: 'Zürich, 4001 — ok' },
    ]);
    const last = Buffer.from('row:8999', 'utf8').toString('base64url');
    expect((await rows(created.body.data.id, `?cursor=${last}`)).body.data).toEqual([{ n: 9_000, note: 'Zürich, 9000 — ok' }]);
  });

  it("keeps each organization's datasets to itself and deletes a dataset with its table", async () => {
    const created = await upload(t, org.apiKey, projectId, 'a\n1\n', { query: { name: 'private' } });
    const id = created.body.data.id;
    for (const [method, path] of [['GET', `datasets/${id}`], ['GET', `datasets/${id}/rows`], ['DELETE', `datasets/${id}`]]) {
      expect((await t.request(method, path, { apiKey: other.apiKey })).status, `${method} ${path}`).toBe(404);
    }
    expect((await upload(t, other.apiKey, projectId, 'a\n1\n')).status).toBe(404);
    expect((await t.request<{ data: Dataset[] }>('GET', 'datasets', { apiKey: other.apiKey })).body.data).toEqual([]);

    expect(await tablesOf(t, projectId)).toContain('private');
    expect((await t.request('DELETE', `datasets/${id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect((await t.request('GET', `datasets/${id}`, { apiKey: org.apiKey })).status).toBe(404);
    expect(await tablesOf(t, projectId)).not.toContain('private');
  });

  it('sweeps away an upload whose server stopped mid-way, with its table, and leaves recent ones', async () => {
    const project = await createProject(t, org, 'Crashed');
    const stale = await t.app.services.datasets.reserve(org.orgId, project, 'stale', 'upload', null);
    const recent = await t.app.services.datasets.reserve(org.orgId, project, 'recent', 'upload', null);
    await t.database.db.exec(`CREATE SCHEMA IF NOT EXISTS data_${project.slice(5)}; CREATE TABLE data_${project.slice(5)}.stale (_row_id bigint)`);
    await t.database.db.query('UPDATE datasets SET updated_at = $2 WHERE id = $1', [stale.id, new Date(Date.now() - 7 * 3600 * 1000)]);
    expect(await t.app.services.datasets.sweepAbandonedUploads()).toBe(1);
    expect((await t.request('GET', `datasets/${stale.id}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await t.request<{ data: Dataset }>('GET', `datasets/${recent.id}`, { apiKey: org.apiKey })).body.data.status).toBe('importing');
    expect(await tablesOf(t, project)).toEqual([]);
  });

  it("drops a project's schema with the project", async () => {
    const project = await createProject(t, org, 'Doomed');
    const created = await upload(t, org.apiKey, project, 'a,b\n1,2\n', { query: { name: 'gone' } });
    expect(await tablesOf(t, project)).toEqual(['gone']);
    expect((await t.request('DELETE', `projects/${project}`, { apiKey: org.apiKey })).status).toBe(204);
    expect(await tablesOf(t, project)).toEqual([]);
    const schemas = await t.database.db.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [`data_${project.slice(5)}`]);
    expect(schemas).toEqual([]);
    expect((await t.request('GET', `datasets/${created.body.data.id}`, { apiKey: org.apiKey })).status).toBe(404);
  });
});
