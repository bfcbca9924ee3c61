import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject, type Dataset, dropProjectSchemas, type ErrorBody, eventually, tablesOf, upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';

/** Uploads built to hurt: each is refused with a clear answer and leaves no dataset or table behind. */
describe.each(databaseKinds())('hostile uploads on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp(kind, { config: { maxUploadBytes: 32 * 1024 * 1024 } });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    projectId = await createProject(t, org);
  });
  afterAll(async () => {
    await dropProjectSchemas(t);
    await t.close();
  });

  const datasetsUrl = () => `${t.baseUrl}/api/v1/projects/${projectId}/datasets`;
  const nothingLeft = async () => {
    const list = await t.request<{ data: Dataset[] }>('GET', `datasets?projectId=${projectId}`, { apiKey: org.apiKey });
    return list.body.data.length === 0 && (await tablesOf(t, projectId)).length === 0;
  };

  /**
   * Sends the body in 64 KiB chunks with no Content-Length, as a client streaming a file does, and
   * reads the answer even when the server answers before the body is all sent and then closes the
   * connection (as it does for a refused upload): what is left unsent then fails to write, which a
   * client that reads its response, like curl, ignores.
   */
  function streamed(body: string, contentType = 'text/csv') {
    const bytes = Buffer.from(body, 'utf8');
    return new Promise<{ status: number; body: ErrorBody }>((resolve, reject) => {
      const sending = httpRequest(new URL(datasetsUrl()), {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': contentType, 'transfer-encoding': 'chunked' },
      });
      let answered = false;
      sending.on('error', (error) => {
        if (!answered) reject(error);
      });
      sending.on('response', (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ErrorBody }));
        response.on('error', reject);
      });
      const sendFrom = (at: number): void => {
        if (answered || sending.destroyed) return;
        if (at >= bytes.length) {
          sending.end();
          return;
        }
        sending.write(bytes.subarray(at, at + 64 * 1024), () => sendFrom(at + 64 * 1024));
      };
      sendFrom(0);
    });
  }

  it('a JSON body or no content type is 415 naming what the upload takes', async () => {
    for (const headers of [{ 'content-type': 'application/json' }, {} as Record<string, string>]) {
      const response = await t.request<ErrorBody>('POST', `projects/${projectId}/datasets`, { apiKey: org.apiKey, rawBody: Buffer.from('{"a":1}'), headers });
      expect(response.status, JSON.stringify(headers)).toBe(415);
      expect(response.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', error: expect.stringContaining('multipart/form-data or text/csv') });
    }
    expect(await nothingLeft()).toBe(true);
  });

  it('a truncated multipart body is 422 and leaves nothing', async () => {
    const head = '--cut\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\na,b\n1,2\n';
    const response = await t.request<ErrorBody>('POST', `projects/${projectId}/datasets`, {
      apiKey: org.apiKey,
      rawBody: head,
      headers: { 'content-type': 'multipart/form-data; boundary=cut' },
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringMatching(/multipart/) });
    expect(await nothingLeft()).toBe(true);
  });

  it('a raw CSV upload the client abandons midway leaves no dataset or table, at once', async () => {
    const url = new URL(datasetsUrl());
    const sending = httpRequest(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
    });
    sending.on('error', () => undefined);
    sending.write(`a,b\n${'1,2\n'.repeat(50_000)}`);
    await eventually(async () => ((await t.database.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM datasets`))[0].n > 0 ? true : undefined), 20_000);
    sending.destroy();
    // Well before the six-hour sweep: the server notices the cut connection and undoes the upload.
    await eventually(async () => ((await nothingLeft()) ? true : undefined), 20_000);
    // Its one log line, though it was never answered.
    const lines = t.logs.map((line) => JSON.parse(line) as { msg: string; method?: string; url?: string; aborted?: boolean; reqId?: string });
    const abandoned = lines.filter((line) => line.msg === 'request' && line.method === 'POST' && line.aborted === true);
    expect(abandoned).toEqual([expect.objectContaining({ url: `/api/v1/projects/${projectId}/datasets`, reqId: expect.any(String) })]);
    expect(lines.filter((line) => line.msg === 'request' && line.reqId === abandoned[0].reqId)).toHaveLength(1);
  });

  it('a 20 MB line with no line break, sent in chunks, is 422 naming the line and leaves nothing', async () => {
    const noBreakAtAll = await streamed('x'.repeat(20 * 1024 * 1024));
    expect(noBreakAtAll.status).toBe(422);
    expect(noBreakAtAll.body.error).toMatch(/^Line 1 is longer than 1 MiB/);

    const longSecondLine = await streamed(`a,b\n1,2\n3,${'y'.repeat(20 * 1024 * 1024)}`);
    expect(longSecondLine.status).toBe(422);
    expect(longSecondLine.body.error).toMatch(/^Line 3 is longer than 1 MiB/);
    expect(await nothingLeft()).toBe(true);
  });

  it('a client still sending when its upload is refused gets the 422 whole, and its connection is not cut under it', async () => {
    const outcome = await new Promise<{ status: number; body: string; writeError?: string }>((resolve) => {
      const sending = httpRequest(new URL(datasetsUrl()), {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
      });
      const answer = { status: 0, body: '' };
      let [sent, read] = [false, false];
      const settled = () => sent && read && resolve(answer);
      sending.on('response', (response) => {
        answer.status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        response.on('data', (text: string) => (answer.body += text));
        response.on('end', () => ((read = true), settled()));
      });
      sending.on('error', (error) => resolve({ ...answer, writeError: error.message }));
      // The whole file in one write: the server refuses it after its first MiB, while most of it is still on its way.
      sending.end(`a,${'z'.repeat(24 * 1024 * 1024)}\n`, () => ((sent = true), settled()));
    });
    expect(outcome.writeError).toBeUndefined();
    expect(outcome.status).toBe(422);
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringMatching(/^Line 1 is longer than 1 MiB/) });
    expect(await nothingLeft()).toBe(true);
  });

  it('a quote that never closes is 422 naming its line, however short or long the rest', async () => {
    const short = await upload<ErrorBody>(t, org.apiKey, projectId, 'a,b\n1,2\n3,"never closed\n4,5\n');
    expect(short.status).toBe(422);
    expect(short.body.error).toBe('Line 3 opens a quoted field that is never closed.');
    const long = await streamed(`a,b\n1,"${'z\n'.repeat(1024 * 1024)}`);
    expect(long.status).toBe(422);
    expect(long.body.error).toMatch(/^Line 2 is longer than 1 MiB .*quote/);
    expect(await nothingLeft()).toBe(true);
  });

  it('a header cell longer than 200 characters is 422 naming its column', async () => {
    const response = await upload<ErrorBody>(t, org.apiKey, projectId, `a,${'h'.repeat(5000)}\n1,2\n`);
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/column 2, is 5000 characters long; a column name may have at most 200/);
    expect(await nothingLeft()).toBe(true);
  });

  it('columns named like PostgreSQL system columns are renamed like reserved words; non-Latin names become column_N', async () => {
    const created = await upload(t, org.apiKey, projectId, 'xmin,ymin,xmax,ymax,ctid,cmin,cmax,tableoid,売上,Прибыль,Été\n1,2,3,4,5,6,7,8,9,10,11\n', {
      fileName: 'boxes.csv',
    });
    expect(created.status).toBe(201);
    expect(created.body.data.columns.map((column) => column.name)).toEqual([
      'xmin_', 'ymin', 'xmax_', 'ymax', 'ctid_', 'cmin_', 'cmax_', 'tableoid_', 'column_9', 'column_10', 'ete',
    ]);
    const rows = await t.request<{ data: Record<string, unknown>[] }>('GET', `datasets/${created.body.data.id}/rows`, { apiKey: org.apiKey });
    expect(rows.body.data).toEqual([{ xmin_: 1, ymin: 2, xmax_: 3, ymax: 4, ctid_: 5, cmin_: 6, cmax_: 7, tableoid_: 8, column_9: 9, column_10: 10, ete: 11 }]);
    await t.request('DELETE', `datasets/${created.body.data.id}`, { apiKey: org.apiKey });
  });
});
