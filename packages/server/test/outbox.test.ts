import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../src/db/connect.js';
import { type NamedStatement, statementText } from '../src/db/named-statement.js';
import { AlertService } from '../src/modules/alerts/service.js';
import { OrganizationService } from '../src/modules/organizations/service.js';
import { ProjectService } from '../src/modules/projects/service.js';
import { UserService } from '../src/modules/users/service.js';
import { ManualClock } from '../src/platform/clock.js';
import { testConfig } from './support/app.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';
import { orgSnapshot } from './support/resources.js';

const injected = 'injected failure';

/**
 * Makes a database's transactions fail on purpose: on the statement `failOn` picks, or after the
 * work has run every statement (so just before COMMIT). Before failing it counts the events the
 * transaction has written, to prove they existed and were rolled back rather than never written.
 */
class FailureInjector {
  failOn: ((sql: string) => boolean) | undefined;
  failAtCommit = false;
  eventsSeenInFailedTransaction = -1;
  /** The wrapped database: everything but `transaction` goes straight to the real one. */
  readonly db: Db;

  constructor(inner: Db) {
    const transaction = this.transaction.bind(this, inner);
    this.db = new Proxy(inner, {
      get(target, property) {
        if (property === 'transaction') return transaction;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private transaction<T>(inner: Db, work: (tx: Queryable) => Promise<T>): Promise<T> {
    return inner.transaction(async (tx) => {
      const fail = async (): Promise<never> => {
        const [row] = await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM events');
        this.eventsSeenInFailedTransaction = row.count;
        throw new Error(injected);
      };
      const guarded: Queryable = {
        query: async <Row>(sql: string | NamedStatement, params?: readonly unknown[]) => {
          if (this.failOn?.(statementText(sql))) await fail();
          return tx.query<Row>(sql, params);
        },
        exec: (sql: string) => tx.exec(sql),
      };
      const result = await work(guarded);
      if (this.failAtCommit) await fail();
      return result;
    });
  }
}

function servicesOn(db: Db, clock: ManualClock) {
  const ctx = { db, clock, config: testConfig() };
  return {
    organizations: new OrganizationService(ctx),
    projects: new ProjectService(ctx),
    alerts: new AlertService(ctx),
    users: new UserService(ctx),
  };
}
type Services = ReturnType<typeof servicesOn>;

describe.each(databaseKinds())('the outbox on %s', (kind) => {
  const clock = new ManualClock('2026-05-01T00:00:00.000Z');
  let database: TestDatabase;
  let failing: FailureInjector;
  let good: Services;
  let bad: Services;
  let orgId: string;
  let projectId: string;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    failing = new FailureInjector(database.db);
    good = servicesOn(database.db, clock);
    bad = servicesOn(failing.db, clock);
    const created = await good.organizations.create({ name: 'Outbox', plan: 'business', adminEmail: 'admin@example.com' });
    orgId = created.org.id;
    projectId = (await good.projects.create(orgId, { name: 'Outbox project' })).id;
  });
  afterAll(() => database.drop());

  const snapshot = () => orgSnapshot(database.db, orgId);
  const eventTypes = async () =>
    (await database.db.query<{ type: string }>('SELECT type FROM events ORDER BY id')).map((row) => row.type);

  const newAlert = (severity: 'low' | 'critical' = 'low') => good.alerts.create(orgId, { title: 'Outbox alert', severity, projectId });
  let serial = 0;
  const email = (what: string) => `${what}-${++serial}@example.com`;
  const newMember = async () => {
    const { user } = await good.users.invite(orgId, { email: email('member'), role: 'member' });
    return good.users.activate(orgId, user.id);
  };

  /** Each change, what it needs to exist first (their ids), and the events it must leave when it commits. */
  interface Change {
    name: string;
    events: string[];
    given?: () => Promise<string[]>;
    act: (s: Services, ids: string[]) => Promise<unknown>;
  }
  const anAlert = async () => [(await newAlert()).id];
  const aProject = async (name: string) => (await good.projects.create(orgId, { name })).id;
  const changes: Change[] = [
    { name: 'create a project', events: ['project.created'], act: (s) => s.projects.create(orgId, { name: 'New' }) },
    {
      name: 'update a project',
      events: ['project.updated'],
      given: async () => [await aProject('To update')],
      act: (s, [id]) => s.projects.update(orgId, id, { name: 'Updated' }),
    },
    {
      name: 'delete a project with an alert',
      events: ['project.deleted'],
      given: async () => {
        const id = await aProject('To delete');
        await good.alerts.create(orgId, { title: 'Goes too', severity: 'low', projectId: id });
        return [id];
      },
      act: (s, [id]) => s.projects.delete(orgId, id),
    },
    { name: 'create an alert', events: ['alert.created'], act: (s) => s.alerts.create(orgId, { title: 'New', severity: 'high', projectId }) },
    {
      name: 'create a critical alert',
      events: ['alert.created', 'alert.critical'],
      act: (s) => s.alerts.create(orgId, { title: 'Down', severity: 'critical', projectId }),
    },
    {
      name: 'raise an alert to critical',
      events: ['alert.critical'],
      given: anAlert,
      act: (s, [id]) => s.alerts.update(orgId, id, { severity: 'critical', title: 'Worse' }),
    },
    { name: 'acknowledge an alert', events: ['alert.acknowledged'], given: anAlert, act: (s, [id]) => s.alerts.acknowledge(orgId, id) },
    {
      name: 'assign an alert',
      events: ['alert.assigned'],
      given: async () => [(await newAlert()).id, (await newMember()).id],
      act: (s, [alertId, userId]) => s.alerts.assign(orgId, alertId, userId),
    },
    { name: 'resolve an alert', events: ['alert.resolved'], given: anAlert, act: (s, [id]) => s.alerts.resolve(orgId, id) },
    {
      name: 'delete an alert',
      events: ['alert.deleted'],
      given: async () => [(await newAlert('critical')).id],
      act: (s, [id]) => s.alerts.delete(orgId, id),
    },
    { name: 'invite a user', events: ['user.invited'], act: (s) => s.users.invite(orgId, { email: email('invitee'), role: 'viewer' }) },
    {
      name: 'deactivate a user',
      events: ['user.deactivated'],
      given: async () => [(await newMember()).id],
      act: (s, [id]) => s.users.deactivate(orgId, id),
    },
    {
      name: 'activate a user',
      events: ['user.activated'],
      given: async () => [(await good.users.invite(orgId, { email: email('activate'), role: 'member' })).user.id],
      act: (s, [id]) => s.users.activate(orgId, id),
    },
  ];

  for (const change of changes) {
    it(`${change.name}: a failure before COMMIT leaves no event and no change; the committed change leaves ${change.events.join(' + ')}`, async () => {
      clock.advance(1000);
      const ids = (await change.given?.()) ?? [];
      const before = await snapshot();
      const eventsBefore = (await eventTypes()).length;
      failing.failAtCommit = true;
      try {
        await expect(change.act(bad, ids)).rejects.toThrow(injected);
      } finally {
        failing.failAtCommit = false;
      }
      expect(failing.eventsSeenInFailedTransaction).toBe(eventsBefore + change.events.length);
      expect(await snapshot()).toEqual(before);

      // The same change through a working database commits, with exactly its events.
      const typesBefore = await eventTypes();
      await change.act(good, ids);
      expect(await eventTypes()).toEqual([...typesBefore, ...change.events]);
    });
  }

  it('a critical alert that fails between its two events leaves neither event nor alert', async () => {
    const before = await snapshot();
    let eventInserts = 0;
    failing.failOn = (sql) => sql.includes('INSERT INTO events') && ++eventInserts === 2;
    try {
      await expect(bad.alerts.create(orgId, { title: 'Half', severity: 'critical', projectId })).rejects.toThrow(injected);
    } finally {
      failing.failOn = undefined;
    }
    expect(failing.eventsSeenInFailedTransaction).toBe((await eventTypes()).length + 1);
    expect(await snapshot()).toEqual(before);
  });

  it('an organization that fails to be created leaves no organization, admin, key or billing event', async () => {
    const orgsBefore = await database.db.query('SELECT id FROM organizations ORDER BY id');
    const eventsBefore = await eventTypes();
    failing.failAtCommit = true;
    try {
      await expect(bad.organizations.create({ name: 'Never', plan: 'enterprise', adminEmail: 'x@example.com' })).rejects.toThrow(injected);
    } finally {
      failing.failAtCommit = false;
    }
    expect(failing.eventsSeenInFailedTransaction).toBe(eventsBefore.length + 3);
    expect(await database.db.query('SELECT id FROM organizations ORDER BY id')).toEqual(orgsBefore);
    expect(await eventTypes()).toEqual(eventsBefore);
  });

  it('a change refused by a rule (409) writes no event', async () => {
    const alert = await newAlert();
    await good.alerts.resolve(orgId, alert.id);
    const before = await snapshot();
    await expect(good.alerts.acknowledge(orgId, alert.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(good.users.invite(orgId, { email: 'admin@example.com', role: 'member' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await snapshot()).toEqual(before);
  });

  it('every event is stamped with the clock time and an evt_ id, its data the resource as the API shows it', async () => {
    clock.set('2026-05-02T12:34:56.789Z');
    const alert = await good.alerts.create(orgId, { title: 'Stamped', severity: 'info', projectId });
    const [event] = await database.db.query<{ id: string; type: string; data: unknown; created_at: Date }>(
      `SELECT * FROM events WHERE org_id = $1 AND data->>'id' = $2`,
      [orgId, alert.id],
    );
    expect(event.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(event.type).toBe('alert.created');
    expect(event.created_at.toISOString()).toBe('2026-05-02T12:34:56.789Z');
    expect(event.data).toEqual(alert);
  });
});
