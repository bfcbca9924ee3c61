import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { salesCsv } from './support/dashboards.js';
import { createProject, upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';

const rounds = 40;

describe.each(databaseKinds())('granting a project\'s read role while its datasets come and go, on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());

  it(`never answers 5xx over ${rounds} rounds of a dashboard created while a dataset is deleted and another uploaded`, async () => {
    const projectId = await createProject(t, org, 'Race');
    const widgets = [{ title: 'Count', kind: 'number', query: { source: 'alerts', measure: { fn: 'count' } } }];
    const statuses: number[] = [];
    let doomed = (await upload<{ data: { id: string } }>(t, org.apiKey, projectId, salesCsv, { query: { name: 'sales' } })).body.data.id;
    for (let round = 0; round < rounds; round++) {
      const [dashboard, deleted, uploaded] = await Promise.all([
        t.request('POST', 'dashboards', { apiKey: org.apiKey, body: { projectId, name: `Round ${round}`, widgets } }),
        t.request('DELETE', `datasets/${doomed}`, { apiKey: org.apiKey }),
        upload<{ data: { id: string } }>(t, org.apiKey, projectId, salesCsv, { query: { name: `sales ${round}` } }),
      ]);
      statuses.push(dashboard.status, deleted.status, uploaded.status);
      expect([dashboard.status, deleted.status, uploaded.status], JSON.stringify([dashboard.body, deleted.body, uploaded.body])).toEqual([201, 204, 201]);
      doomed = uploaded.body.data.id;
    }
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    const data = await t.request<{ data: { widgets: { rows: unknown[]; error: string | null }[] } }>('GET', `dashboards?projectId=${projectId}&limit=1`, { apiKey: org.apiKey });
    expect(data.status).toBe(200);
  });
});
