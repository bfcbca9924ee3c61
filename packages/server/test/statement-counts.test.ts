import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { graphql } from './support/graphql.js';
import { type Alert, createProject, type One, type Project } from './support/resources.js';
import { type CountedDb, countStatements, isTheRequestsOwn } from './support/statement-count.js';

/**
 * The SQL statements each common request runs, with warm caches. A number that grows fails here on
 * purpose: each statement is a round trip every such request pays. Lower it when a change saves
 * one; raise it only with the reason written beside it.
 */
const expected = {
  /** The page of alerts, with one more row than the page to learn whether another follows. */
  'GET /alerts': 1,
  /** The alert. */
  'GET /alerts/{id}': 1,
  /**
   * BEGIN; the project, locked FOR SHARE so it cannot be deleted meanwhile; the alert; its
   * alert.created event, written with the pg_notify that announces it once committed (GraphQL
   * subscriptions) and the lookup of the webhooks that take it (events/outbox.ts; with webhooks,
   * their deliveries are one statement more); COMMIT.
   */
  'POST /alerts': 5,
  /**
   * The same: the key with its answer is written by the event's statement, as a CTE (platform/
   * idempotency.ts answerOnce, db/rider.ts). A repeat of a dedupKey, which records no event, writes it alone.
   */
  'POST /alerts with an Idempotency-Key': 5,
  /** The page of alerts, as GET /alerts. */
  'GraphQL { alerts(first: 20) }': 1,
} as const;

describe.each(databaseKinds())('SQL statements per request on %s', (kind) => {
  let counted: CountedDb;
  let t: TestApp;
  let org: TestOrg;
  let project: Project;
  let alert: Alert;

  beforeAll(async () => {
    t = await startTestApp(kind, { wrapDb: (db) => (counted = countStatements(db)).db });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org);
    alert = (await t.request<One<Alert>>('POST', 'alerts', { apiKey: org.apiKey, body: { title: 'Disk full', severity: 'high', projectId: project.id } })).body
      .data;
  });
  afterAll(() => t?.close());

  const createAlert = (headers: Record<string, string> = {}) =>
    t.request('POST', 'alerts', { apiKey: org.apiKey, body: { title: 'Disk full', severity: 'high', projectId: project.id }, headers });
  const requests: Record<keyof typeof expected, () => Promise<{ status: number }>> = {
    'GET /alerts': () => t.request('GET', 'alerts', { apiKey: org.apiKey }),
    'GET /alerts/{id}': () => t.request('GET', `alerts/${alert.id}`, { apiKey: org.apiKey }),
    'POST /alerts': () => createAlert(),
    'POST /alerts with an Idempotency-Key': () => createAlert({ 'idempotency-key': crypto.randomUUID() }),
    'GraphQL { alerts(first: 20) }': () => graphql(t.baseUrl, org.apiKey, '{ alerts(first: 20) { id title } }'),
  };

  /** The statements one request runs, after the same request once to warm every cache. */
  async function statementsOf(send: () => Promise<{ status: number }>): Promise<string[]> {
    await send();
    counted.clear();
    const answer = await send();
    expect(answer.status).toBeLessThan(300);
    return counted.statements.filter(isTheRequestsOwn);
  }

  it.each(Object.keys(expected) as (keyof typeof expected)[])('%s', async (name) => {
    const statements = await statementsOf(requests[name]);
    expect(statements, statements.join('\n---\n')).toHaveLength(expected[name]);
  });
});
