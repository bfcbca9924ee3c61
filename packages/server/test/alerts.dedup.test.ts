import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../src/db/connect.js';
import type { NamedStatement } from '../src/db/named-statement.js';
import { AlertService } from '../src/modules/alerts/service.js';
import { databaseKinds } from './support/databases.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg, testConfig } from './support/app.js';
import { graphql } from './support/graphql.js';
import { type Alert, allPages, createProject, type ErrorBody, eventsOf, type One, type Project } from './support/resources.js';

/** The same database, counting every statement run inside its transactions. */
function countingStatements(db: Db): { db: Db; statements: () => number } {
  let statements = 0;
  const counted = (queryable: Queryable): Queryable => ({
    query: <Row>(sql: string | NamedStatement, params?: readonly unknown[]) => {
      statements++;
      return queryable.query<Row>(sql, params);
    },
    exec: (sql: string) => {
      statements++;
      return queryable.exec(sql);
    },
  });
  const wrapped = Object.assign(Object.create(db) as Db, {
    transaction: <T>(work: (tx: Queryable) => Promise<T>) => db.transaction((tx) => work(counted(tx))),
  });
  return { db: wrapped, statements: () => statements };
}

describe.each(databaseKinds())('alert deduplication (dedupKey) on %s', (kind) => {
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  let t: TestApp;
  let org: TestOrg;
  let project: Project;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org);
  });
  afterAll(() => t.close());

  const post = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.request<One<Alert> & ErrorBody>('POST', 'alerts', { apiKey: org.apiKey, body: { severity: 'high', projectId: project.id, ...body }, headers });
  const eventsAbout = async (id: string) =>
    (await eventsOf(t, org.orgId)).filter((event) => event.data.id === id).map((event) => event.type);

  it('answers a repeat with 200 and the same alert, occurrences + 1 and lastSeenAt set, and sends no event for it', async () => {
    clock.set('2026-04-01T09:00:00.000Z');
    const first = await post({ title: 'Disk full on db-1', severity: 'critical', dedupKey: 'disk-full/db-1' });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ dedupKey: 'disk-full/db-1', occurrences: 1, lastSeenAt: '2026-04-01T09:00:00.000Z', status: 'active' });

    clock.set('2026-04-01T09:01:30.500Z');
    const repeat = await post({ title: 'Another title', severity: 'low', description: 'ignored', dedupKey: 'disk-full/db-1' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toEqual({
      ...first.body.data,
      occurrences: 2,
      lastSeenAt: '2026-04-01T09:01:30.500Z',
      updatedAt: '2026-04-01T09:01:30.500Z',
    });
    expect((await t.request<One<Alert>>('GET', `alerts/${first.body.data.id}`, { apiKey: org.apiKey })).body.data).toEqual(repeat.body.data);
    expect(await eventsAbout(first.body.data.id)).toEqual(['alert.created', 'alert.critical']);
  });

  it('counts repeats of an acknowledged alert too, and opens a new alert (201) once it is resolved', async () => {
    const first = (await post({ title: 'Queue backlog', dedupKey: 'queue' })).body.data;
    await t.request('POST', `alerts/${first.id}/acknowledge`, { apiKey: org.apiKey });
    const whileAcknowledged = await post({ title: 'Queue backlog', dedupKey: 'queue' });
    expect(whileAcknowledged.status).toBe(200);
    expect(whileAcknowledged.body.data).toMatchObject({ id: first.id, status: 'acknowledged', occurrences: 2 });

    await t.request('POST', `alerts/${first.id}/resolve`, { apiKey: org.apiKey });
    const after = await post({ title: 'Queue backlog again', dedupKey: 'queue' });
    expect(after.status).toBe(201);
    expect(after.body.data).toMatchObject({ status: 'active', occurrences: 1, title: 'Queue backlog again' });
    expect(after.body.data.id).not.toBe(first.id);
    expect(await eventsAbout(after.body.data.id)).toEqual(['alert.created']);

    const byKey = await allPages<Alert>(t, org, 'alerts?dedupKey=queue');
    expect(byKey.map((alert) => [alert.id, alert.status, alert.occurrences])).toEqual([
      [after.body.data.id, 'active', 1],
      [first.id, 'resolved', 2],
    ]);
    expect((await allPages<Alert>(t, org, 'alerts?dedupKey=queue&status=active')).map((alert) => alert.id)).toEqual([after.body.data.id]);
    expect(await allPages<Alert>(t, org, 'alerts?dedupKey=nothing-has-this')).toEqual([]);
  });

  it('keeps keys apart per project, and alerts without a key are never repeats', async () => {
    const other = await createProject(t, org, 'Other');
    const here = await post({ title: 'CPU', dedupKey: 'cpu' });
    const there = await post({ title: 'CPU', dedupKey: 'cpu', projectId: other.id });
    expect([here.status, there.status]).toEqual([201, 201]);
    expect(there.body.data.id).not.toBe(here.body.data.id);
    const plain = [await post({ title: 'No key' }), await post({ title: 'No key' })];
    expect(plain.map((response) => [response.status, response.body.data.dedupKey, response.body.data.occurrences])).toEqual([
      [201, null, 1],
      [201, null, 1],
    ]);
  });

  it('refuses an empty key or one over 255 characters naming dedupKey, and another organization’s project with 404', async () => {
    for (const dedupKey of ['', 'k'.repeat(256), 42]) {
      const refused = await post({ title: 'Bad key', dedupKey });
      expect(refused.status).toBe(422);
      expect(refused.body.details?.map((problem) => problem.field)).toEqual(['dedupKey']);
    }
    expect((await post({ title: 'Longest key', dedupKey: 'k'.repeat(255) })).status).toBe(201);
    expect((await t.request<ErrorBody>('GET', `alerts?dedupKey=${'k'.repeat(256)}`, { apiKey: org.apiKey })).status).toBe(422);

    const stranger = await t.createOrg('business');
    const theirs = await createProject(t, stranger, 'Theirs');
    await t.request('POST', 'alerts', { apiKey: stranger.apiKey, body: { title: 'Theirs', severity: 'low', projectId: theirs.id, dedupKey: 'shared' } });
    const intoTheirs = await post({ title: 'Mine', dedupKey: 'shared', projectId: theirs.id });
    expect(intoTheirs.status).toBe(404);
    expect((await allPages<Alert>(t, stranger, 'alerts?dedupKey=shared'))[0].occurrences).toBe(1);
    expect(await allPages<Alert>(t, org, 'alerts?dedupKey=shared')).toEqual([]);
  });

  it('makes exactly one alert of 20 concurrent POSTs with one key, occurrences 20, and a 21st counts 21', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => post({ title: 'Flapping', dedupKey: 'flap' })));
    expect(responses.map((response) => response.status).sort()).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(responses.map((response) => response.body.data.id)).size).toBe(1);
    const [alert] = await allPages<Alert>(t, org, 'alerts?dedupKey=flap');
    expect(alert.occurrences).toBe(20);
    expect((await post({ title: 'Flapping', dedupKey: 'flap' })).body.data).toMatchObject({ id: alert.id, occurrences: 21 });
    expect(await eventsAbout(alert.id)).toEqual(['alert.created']);
  });

  it('replays a retried POST with the same Idempotency-Key without counting it again', async () => {
    const first = await post({ title: 'Retried', dedupKey: 'retried' }, { 'idempotency-key': 'retry-1' });
    const retried = await post({ title: 'Retried', dedupKey: 'retried' }, { 'idempotency-key': 'retry-1' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    const repeat = await post({ title: 'Retried', dedupKey: 'retried' }, { 'idempotency-key': 'retry-2' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toMatchObject({ id: first.body.data.id, occurrences: 2 });
  });

  it('works through GraphQL too: createAlert with a dedupKey repeats, and alerts(filter: {dedupKey}) finds it', async () => {
    const create = 'mutation ($input: CreateAlertInput!) { createAlert(input: $input) { id dedupKey occurrences lastSeenAt createdAt } }';
    const input = { projectId: project.id, title: 'Certificate expires', severity: 'MEDIUM', dedupKey: 'cert/api' };
    type Created = { createAlert: { id: string; dedupKey: string; occurrences: number; lastSeenAt: string; createdAt: string } };
    clock.set('2026-04-02T00:00:00.000Z');
    const first = (await graphql<Created>(t.baseUrl, org.apiKey, create, { input })).body.data!.createAlert;
    clock.set('2026-04-02T00:10:00.000Z');
    const repeat = (await graphql<Created>(t.baseUrl, org.apiKey, create, { input })).body.data!.createAlert;
    expect(first).toEqual({ id: expect.any(String), dedupKey: 'cert/api', occurrences: 1, lastSeenAt: '2026-04-02T00:00:00.000Z', createdAt: '2026-04-02T00:00:00.000Z' });
    expect(repeat).toEqual({ ...first, occurrences: 2, lastSeenAt: '2026-04-02T00:10:00.000Z' });
    const listed = await graphql<{ alerts: { id: string; occurrences: number }[] }>(
      t.baseUrl,
      org.apiKey,
      'query { alerts(filter: { dedupKey: "cert/api" }) { id occurrences } }',
    );
    expect(listed.body.data?.alerts).toEqual([{ id: first.id, occurrences: 2 }]);
  });

  it('costs no more SQL statements for a repeat, or a first POST with a key, than for a plain create', async () => {
    const counting = countingStatements(t.database.db);
    const alerts = new AlertService({ db: counting.db, clock, config: testConfig() });
    const statementsOf = async (input: Parameters<AlertService['raise']>[1]) => {
      const before = counting.statements();
      const raised = await alerts.raise(org.orgId, input);
      return { repeated: raised.repeated, statements: counting.statements() - before };
    };
    const base = { title: 'Counted', severity: 'medium' as const, projectId: project.id };
    const plain = await statementsOf(base);
    const firstWithKey = await statementsOf({ ...base, dedupKey: 'counted' });
    const repeat = await statementsOf({ ...base, dedupKey: 'counted' });
    expect([plain.repeated, firstWithKey.repeated, repeat.repeated]).toEqual([false, false, true]);
    expect(firstWithKey.statements).toBe(plain.statements);
    expect(repeat.statements).toBeLessThan(plain.statements);
  });
});
