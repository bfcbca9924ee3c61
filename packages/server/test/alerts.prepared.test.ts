import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type Alert, createProject, type List, type One } from './support/resources.js';

/**
 * The alert list and the alert read run as statements kept prepared on each connection
 * (db/named-statement.ts). A migration of a rolling upgrade adds a column while processes of the
 * previous version still hold those statements: each must go on answering, which a kept
 * `SELECT *` would not ("cached plan must not change result type").
 */
describe.each(databaseKinds())('alerts read through kept statements on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let alert: Alert;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const project = await createProject(t, org);
    alert = (await t.request<One<Alert>>('POST', 'alerts', { apiKey: org.apiKey, body: { title: 'Disk full', severity: 'high', projectId: project.id } })).body
      .data;
  });
  afterAll(() => t?.close());

  /** Enough requests at once that every connection of the pool runs (and keeps) both statements. */
  const readEverywhere = () =>
    Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        index % 2 === 0
          ? t.request<List<Alert>>('GET', 'alerts?status=active', { apiKey: org.apiKey })
          : t.request<One<Alert>>('GET', `alerts/${alert.id}`, { apiKey: org.apiKey }),
      ),
    );

  it('answers the same before and after a migration adds a column to alerts', async () => {
    const before = await readEverywhere();
    await t.database.db.exec('ALTER TABLE alerts ADD COLUMN added_by_a_later_version text');
    const after = await readEverywhere();
    for (const answers of [before, after]) {
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      expect(answers.filter((_, index) => index % 2 === 0).map((answer) => (answer.body as List<Alert>).data.map((listed) => listed.id))).toEqual(
        answers.filter((_, index) => index % 2 === 0).map(() => [alert.id]),
      );
      expect(answers.filter((_, index) => index % 2 === 1).map((answer) => (answer.body as One<Alert>).data)).toEqual(
        answers.filter((_, index) => index % 2 === 1).map(() => alert),
      );
    }
    expect(JSON.stringify(after[1].body)).not.toContain('added_by_a_later_version');
  });
});
