import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import type { ErrorBody } from './support/resources.js';
import { acceptLink, signIn, type SignedIn } from './support/sessions.js';

const perMinute = 5;

describe.each(databaseKinds())('a console session\'s own rate limit on %s', (kind) => {
  const clock = new ManualClock('2026-08-01T09:00:10.000Z');
  let t: TestApp;
  let org: TestOrg;
  let person: SignedIn;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock, config: { sessionRateLimit: perMinute } });
    org = await t.createOrg('free', { adminEmail: 'founder@example.com', founderJoins: false });
    person = await acceptLink(t, org.inviteUrl!);
  });
  afterAll(() => t.close());

  it('counts each session\'s requests per minute, with the API\'s headers, and answers 429 with Retry-After past the limit', async () => {
    const answers = [];
    for (let request = 1; request <= perMinute; request++) answers.push(await person.call('GET', 'projects'));
    expect(answers.map((answer) => [answer.status, answer.headers.get('x-ratelimit-limit'), answer.headers.get('x-ratelimit-remaining')])).toEqual(
      Array.from({ length: perMinute }, (_, index) => [200, String(perMinute), String(perMinute - index - 1)]),
    );
    const resetAt = Date.parse('2026-08-01T09:01:00.000Z') / 1000;
    expect(Number(answers[0].headers.get('x-ratelimit-reset'))).toBe(resetAt);

    const refused = await person.call<ErrorBody>('POST', 'projects', { name: 'One too many' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', requestId: expect.any(String) });
    expect(refused.body.error).toBe(`This session's limit of ${perMinute} requests per minute is used up; wait 50 seconds.`);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');

    // Another session of the same person has a counter of its own.
    const other = await signIn(t, 'founder@example.com');
    expect((await other.call('GET', 'projects')).status).toBe(200);

    clock.advance(50_000);
    expect((await person.call('GET', 'projects')).status).toBe(200);
  });

  it('leaves API keys to their organization\'s limit and plan, uncounted by the session', async () => {
    const business = await t.createOrg('business', { adminEmail: 'b@example.com', founderJoins: false });
    const admin = await acceptLink(t, business.inviteUrl!);
    for (let request = 1; request <= perMinute; request++) expect((await admin.call('GET', 'projects')).status).toBe(200);
    expect((await admin.call('GET', 'projects')).status).toBe(429);
    const withKey = await t.request('GET', 'projects', { apiKey: business.apiKey });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('x-ratelimit-limit')).toBe('120');
    expect(withKey.headers.get('x-ratelimit-remaining')).toBe('119');
  });
});
