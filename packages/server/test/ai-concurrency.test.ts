import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject } from './support/resources.js';

/** A promise and the function that settles it: a statement held open until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe.each(databaseKinds)('the model’s SQL, per organization, on %s', (kind) => {
  let t: TestApp;
  let heavy: TestOrg;
  let calm: TestOrg;
  let heavyProject: string;
  let calmProject: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    heavy = await t.createOrg('business', { name: 'Heavy' });
    calm = await t.createOrg('business', { name: 'Calm' });
    heavyProject = (await createProject(t, heavy)).id;
    calmProject = (await createProject(t, calm)).id;
    for (const [org, project] of [[heavy, heavyProject], [calm, calmProject]] as const) await t.app.services.chat.readers.ensure(org.orgId, project, []);
  });
  afterAll(() => t.close());

  it('one organization’s questions wait at its cap of two statements while another organization’s run and the API answers', async () => {
    const { chat } = t.app.services;
    const held = gate();
    const started: number[] = [];
    // Held before its transaction: PGlite has one connection, so a transaction held open would stop everyone.
    const statement = (n: number) => async () => {
      started.push(n);
      await held.opened;
      return chat.readers.read(heavyProject, 5_000, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts'));
    };
    const heavyQuestions = [1, 2, 3, 4, 5, 6].map((n) => chat.modelSql.run(heavy.orgId, statement(n)));
    await expect.poll(() => started.length).toBe(2);
    expect(chat.modelSql.load(heavy.orgId)).toEqual({ running: 2, waiting: 4 });

    const calmAnswer = await chat.modelSql.run(calm.orgId, () =>
      chat.readers.read(calmProject, 5_000, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts')),
    );
    expect(calmAnswer).toEqual([{ n: 0 }]);
    expect((await t.request('GET', 'projects', { apiKey: calm.apiKey })).status).toBe(200);
    expect(started).toEqual([1, 2]);

    held.open();
    expect((await Promise.all(heavyQuestions)).map((rows) => rows[0].n)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(started.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(chat.modelSql.load(heavy.orgId)).toEqual({ running: 0, waiting: 0 });
  });
});
