import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readlink, rm, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestThreads } from '../src/data/ingest-thread.js';
import { spoolDirectory } from '../src/data/upload-spool.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject, type Dataset, dropProjectSchemas, type ErrorBody, eventually, tablesOf, upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';
import { startServerProcess, tempDataDir } from './support/processes.js';
import { deflatedPart, repeatedPart, sharedStringsHead, sheetHead, sheetTail, workbookParts, zipOf } from './support/zip.js';

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const mib = 1024 * 1024;
const spaces = Buffer.alloc(mib, ' ');

/** The files this process holds open in `directory`: a spool file has no name, but its descriptor still points there. */
async function openFilesIn(directory: string): Promise<string[]> {
  const descriptors = await readdir('/proc/self/fd');
  const targets = await Promise.all(descriptors.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith(`${directory}/`));
}

/** A workbook whose sheet (stored first, before the strings and the workbook part) is `sheet`. */
const bombWorkbook = (sheet: ReturnType<typeof repeatedPart>) =>
  zipOf([sheet, deflatedPart('xl/sharedStrings.xml', `${sharedStringsHead}<si><t>a</t></si></sst>`), ...workbookParts(['Bomb'])]);

/** Uploads built to inflate past what the server accepts: refused before the inflating, and nothing kept anywhere. */
describe.each(databaseKinds())('zip bombs uploaded as .xlsx on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let projectId: string;
  let dataDir: string;
  let tmpDir: string;
  const tmpBefore = process.env.TMPDIR;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-zip-data-'));
    // exceljs spooled sheets into os.tmpdir(): a private one shows whether anything still lands there.
    tmpDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-zip-tmp-'));
    t = await startTestApp(kind, { config: { maxUploadBytes: 32 * mib, dataDir } });
    // Set once the app runs and an ingest thread waits, as the server starts one: the embedded
    // database's thread and the ingest threads, loaded through tsx, keep tsx's compile cache in the
    // temporary directory they started with, which is not the upload's business.
    ingestThreads.warm();
    process.env.TMPDIR = tmpDir;
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    projectId = await createProject(t, org);
  });
  afterAll(async () => {
    await dropProjectSchemas(t);
    await t.close();
    if (tmpBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpBefore;
    await rm(dataDir, { recursive: true, force: true });
    await rm(tmpDir, { recursive: true, force: true });
  });

  const spoolDir = () => spoolDirectory(dataDir);
  const nothingKept = async () => {
    const list = await t.request<{ data: Dataset[] }>('GET', `datasets?projectId=${projectId}`, { apiKey: org.apiKey });
    expect(list.body.data).toEqual([]);
    expect(await tablesOf(t, projectId)).toEqual([]);
    expect(await readdir(spoolDir()).catch(() => [])).toEqual([]);
    expect(await openFilesIn(spoolDir())).toEqual([]);
    expect(await readdir(tmpDir)).toEqual([]);
  };
  const uploadXlsx = (file: Buffer, query?: Record<string, string>) => upload<ErrorBody>(t, org.apiKey, projectId, file, { contentType: xlsxType, query });

  it('reads a workbook whose sheets come before its strings and its workbook part, by sheet name', async () => {
    const strings = ['Item', 'Count', 'city', 'population', 'Paris', 'Lyon'];
    const cell = (ref: string, value: string | number) => (typeof value === 'string' ? `<c r="${ref}" t="s"><v>${strings.indexOf(value)}</v></c>` : `<c r="${ref}"><v>${value}</v></c>`);
    const sheet = (rows: (string | number)[][]) =>
      `${sheetHead}${rows.map((row, r) => `<row r="${r + 1}">${row.map((value, c) => cell(`${'AB'[c]}${r + 1}`, value)).join('')}</row>`).join('')}${sheetTail}`;
    const file = zipOf([
      deflatedPart('xl/worksheets/sheet2.xml', sheet([['city', 'population'], ['Paris', 2100000], ['Lyon', 520000]])),
      deflatedPart('xl/worksheets/sheet1.xml', sheet([['Item', 'Count'], ['Item', 1]])),
      deflatedPart('xl/sharedStrings.xml', `${sharedStringsHead}${strings.map((text) => `<si><t>${text}</t></si>`).join('')}</sst>`),
      ...workbookParts(['First', 'Cities']),
    ]);
    const created = await upload(t, org.apiKey, projectId, file, { contentType: xlsxType, query: { sheet: 'Cities', name: 'cities' } });
    expect(created.status).toBe(201);
    const rows = await t.request<{ data: Record<string, unknown>[] }>('GET', `datasets/${created.body.data.id}/rows`, { apiKey: org.apiKey });
    expect(rows.body.data).toEqual([{ city: 'Paris', population: 2100000 }, { city: 'Lyon', population: 520000 }]);
    await t.request('DELETE', `datasets/${created.body.data.id}`, { apiKey: org.apiKey });
    await nothingKept();
  });

  it('a 3.6 MB file whose sheet inflates to 3.5 GiB is 422 naming the limit, inflating nothing and writing nothing but the upload', async () => {
    const rssBefore = process.memoryUsage().rss;
    const file = bombWorkbook(repeatedPart('xl/worksheets/sheet1.xml', { head: sheetHead, unit: spaces, times: 3584, tail: sheetTail }));
    expect(file.length).toBeLessThan(4 * mib);
    const response = await uploadXlsx(file);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'The workbook\'s part xl/worksheets/sheet1.xml inflates to 3.5 GiB; at most 2 GiB is accepted.' });
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * mib);
    await nothingKept();
  });

  it('a sheet compressed 1000 to 1 is 422 naming the ratio', async () => {
    const response = await uploadXlsx(bombWorkbook(repeatedPart('xl/worksheets/sheet1.xml', { head: sheetHead, unit: spaces, times: 64, tail: sheetTail })));
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/^The workbook's part xl\/worksheets\/sheet1\.xml inflates \d{3,4} times its compressed size; at most 100 times is accepted\.$/);
    await nothingKept();
  });

  it('a sheet that declares 1 MiB and inflates to 3.5 GiB is stopped while it inflates, at the declared size', async () => {
    const rssBefore = process.memoryUsage().rss;
    const lying = repeatedPart('xl/worksheets/sheet1.xml', { head: sheetHead, unit: spaces, times: 3584, tail: sheetTail }, mib);
    const response = await uploadXlsx(bombWorkbook(lying));
    expect(response.status).toBe(422);
    expect(response.body.error).toBe("The workbook's part xl/worksheets/sheet1.xml inflates to more than the 1 MiB its zip declares: the file is damaged, or built to exhaust the server.");
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * mib);
    await nothingKept();
  });

  it('more than 4,000,000 shared strings is 422 naming the limit', async () => {
    // Random text keeps the part's ratio real (about 50 to 1) so that the count is what refuses it.
    const strings = repeatedPart(
      'xl/sharedStrings.xml',
      { head: `${sharedStringsHead}<!-- ${randomBytes(400 * 1024).toString('base64')} -->`, unit: Buffer.from('<si/>'.repeat(100_000)), times: 40, tail: '<si/></sst>' },
    );
    const file = zipOf([deflatedPart('xl/worksheets/sheet1.xml', `${sheetHead}${sheetTail}`), strings, ...workbookParts(['Strings'])]);
    const response = await uploadXlsx(file);
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('The workbook has more than 4,000,000 shared strings; at most that many are accepted.');
    await nothingKept();
  });

  it('a sheet built to fill memory while it is parsed is 422 naming what it passes', async () => {
    const sheetOf = (rows: string) => zipOf([deflatedPart('xl/worksheets/sheet1.xml', `${sheetHead}${rows}${sheetTail}`), ...workbookParts(['Wide'])]);
    const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
    const cases: [string, string, string][] = [
      ['a cell past XFD', `<row r="1">${inline('A1', 'a')}${inline('XFE1', 'b')}</row>`, 'Row 1 has a cell past column XFD, the last one Excel has.'],
      [
        'a row of 2 MiB of text',
        `<row r="1">${inline('A1', 'a')}</row><row r="2">${Array.from({ length: 20 }, (_, i) => inline(`${String.fromCharCode(65 + i)}2`, 'x'.repeat(100 * 1024))).join('')}</row>`,
        'Row 2 holds more than 1 MiB of text; a row may hold at most that.',
      ],
      ['2 MiB between two tags', `<row r="1">${inline('A1', 'a')}</row>${' '.repeat(2 * mib)}`, 'The workbook has more than 1 MiB of text between two tags; a cell holds at most 32,767 characters.'],
    ];
    for (const [label, rows, message] of cases) {
      const response = await uploadXlsx(sheetOf(rows));
      expect(response.status, label).toBe(422);
      expect(response.body.error, label).toBe(message);
    }
    await nothingKept();
  });

  it('an .xlsx upload the client abandons midway leaves no spool file, open or named', async () => {
    const file = bombWorkbook(repeatedPart('xl/worksheets/sheet1.xml', { head: sheetHead, unit: spaces, times: 3584, tail: sheetTail }));
    const sending = httpRequest(new URL(`${t.baseUrl}/api/v1/projects/${projectId}/datasets`), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': xlsxType, 'transfer-encoding': 'chunked' },
    });
    sending.on('error', () => undefined);
    sending.write(file.subarray(0, file.length / 2));
    await eventually(async () => ((await openFilesIn(spoolDir())).length > 0 ? true : undefined), 20_000);
    sending.destroy();
    // The server undoes the upload once it sees the client gone: the spool file closes first, the dataset's row goes after.
    const datasetsLeft = async () => (await t.request<{ data: Dataset[] }>('GET', `datasets?projectId=${projectId}`, { apiKey: org.apiKey })).body.data.length;
    await eventually(async () => ((await openFilesIn(spoolDir())).length === 0 && (await datasetsLeft()) === 0 ? true : undefined), 20_000);
    await eventually(async () => ((await tablesOf(t, projectId)).length === 0 ? true : undefined), 20_000);
    await nothingKept();
  });
});

describe('the upload spool at start-up', () => {
  it('a server removes the spool files a crashed one left, and nothing else', async () => {
    const data = await tempDataDir({ migrated: true });
    try {
      const spoolDir = spoolDirectory(data.dir);
      await mkdir(spoolDir, { recursive: true });
      const stale = path.join(spoolDir, 'vigil-upload-left-by-a-crash');
      await writeFile(stale, 'PK');
      const hourAgo = new Date(Date.now() - 3600_000);
      await utimes(stale, hourAgo, hourAgo);
      await writeFile(path.join(spoolDir, 'notes.txt'), 'not a spool file');
      const server = await startServerProcess({ VIGIL_DATA_DIR: data.dir });
      try {
        expect(await readdir(spoolDir)).toEqual(['notes.txt']);
      } finally {
        await server.stop();
      }
    } finally {
      await data.remove();
    }
  });
});
