import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AiTestApp, ask, startAiTestApp } from './support/ai.js';
import type { TestApp, TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import type { FakeLlm } from './support/fake-llm.js';
import { createProject, type List, type One } from './support/resources.js';

interface QueryRecord {
  id: string;
  projectId: string;
  question: string;
  answer: string;
  sql: string | null;
  rowCount: number;
  tokens: number;
  model: string;
  status: string;
  durationMs: number;
  apiKeyId: string | null;
  userId: string | null;
  createdAt: string;
  rows?: Record<string, unknown>[] | null;
}

describe.each(databaseKinds())('question history on %s', (kind) => {
  let ai: AiTestApp;
  let fake: FakeLlm;
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectA: string;
  let projectB: string;
  const asked: string[] = [];

  const history = (query = '', who = org) => t.request<List<QueryRecord>>('GET', `history${query}`, { apiKey: who.apiKey });

  beforeAll(async () => {
    ai = await startAiTestApp(kind);
    ({ t, fake } = ai);
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
    projectA = (await createProject(t, org, 'A')).id;
    projectB = (await createProject(t, org, 'B')).id;
    for (const [projectId, question] of [
      [projectA, 'first'],
      [projectB, 'second'],
      [projectA, 'third'],
      [projectA, 'fourth'],
    ]) {
      fake.script({ toolCalls: [{ sql: `SELECT '${question}' AS word` }] }, { content: `answer to ${question}` });
      const response = await ask(t, org, projectId, question);
      asked.push(response.body.data.queryId);
    }
  });
  afterAll(() => ai.stop([projectA, projectB]));

  it('lists questions newest first, filtered by project, page by page', async () => {
    const all = await history();
    expect(all.status).toBe(200);
    expect(all.body.data.map((record) => record.question)).toEqual(['fourth', 'third', 'second', 'first']);
    expect(all.body.data[0]).not.toHaveProperty('rows');

    const firstPage = await history(`?projectId=${projectA}&limit=2`);
    expect(firstPage.body.data.map((record) => record.question)).toEqual(['fourth', 'third']);
    expect(firstPage.body.meta).toMatchObject({ limit: 2, hasMore: true });
    const secondPage = await history(`?projectId=${projectA}&limit=2&cursor=${firstPage.body.meta.nextCursor}`);
    expect(secondPage.body.data.map((record) => record.question)).toEqual(['first']);
    expect(secondPage.body.meta).toEqual({ limit: 2, hasMore: false, nextCursor: null });

    expect((await history('?cursor=garbage')).status).toBe(422);
    expect((await history('', other)).body.data).toEqual([]);
  });

  it('shows one question with everything about it, including the rows', async () => {
    const response = await t.request<One<QueryRecord>>('GET', `history/${asked[1]}`, { apiKey: org.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      id: asked[1],
      projectId: projectB,
      question: 'second',
      answer: 'answer to second',
      sql: "SELECT 'second' AS word",
      rowCount: 1,
      rows: [{ word: 'second' }],
      tokens: 220,
      model: 'gpt-test',
      status: 'completed',
      durationMs: expect.any(Number),
      apiKeyId: org.keyId,
      userId: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it("answers 404 for another organization's entry, on read and delete, and keeps it", async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await t.request('' + method, `history/${asked[0]}`, { apiKey: other.apiKey });
      expect(response.status, method).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await t.request('GET', `history/${asked[0]}`, { apiKey: org.apiKey })).status).toBe(200);
  });

  it('deletes an entry with a query.deleted event', async () => {
    const deleted = await t.request('DELETE', `history/${asked[0]}`, { apiKey: org.apiKey });
    expect(deleted.status).toBe(204);
    expect((await t.request('GET', `history/${asked[0]}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await t.request('DELETE', `history/${asked[0]}`, { apiKey: org.apiKey })).status).toBe(404);
    const events = await t.database.db.query<{ data: unknown }>("SELECT data FROM events WHERE type = 'query.deleted'");
    expect(events.map((event) => event.data)).toEqual([{ id: asked[0], projectId: projectA }]);
    expect((await history()).body.data.map((record) => record.id)).not.toContain(asked[0]);
  });
});
