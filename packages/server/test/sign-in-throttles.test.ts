import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordHashingLoad, passwordMatches } from '../src/modules/sessions/secrets.js';
import { addressBackOffMs, failuresPerAccount, failuresPerAddress, linkFailuresPerAddress } from '../src/modules/sessions/sign-in-throttle.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import type { ErrorBody } from './support/resources.js';
import { acceptLink } from './support/sessions.js';

const password = 'correct horse battery';
const wrongPassword = 'not the password at all';

/**
 * A client address no other call has had, so that no test sees another's failures (a random one
 * of 256 sometimes met the address a test had just throttled). 198.18.0.0/15 is reserved for
 * testing network devices: 131,072 addresses.
 */
let addressesGiven = 0;
const newAddress = () => {
  addressesGiven += 1;
  return `198.18.${addressesGiven >> 8}.${addressesGiven & 255}`;
};
const counts = (statuses: number[]) => statuses.reduce<Record<number, number>>((all, status) => ({ ...all, [status]: (all[status] ?? 0) + 1 }), {});

describe.each(databaseKinds())('sign-in throttles behind a trusted proxy on %s', (kind) => {
  const clock = new ManualClock('2026-07-01T09:00:00.000Z');
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock, config: { trustProxy: ['127.0.0.1'] } });
    org = await t.createOrg('business', { adminEmail: 'founder@example.com', rateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());

  /** A person with a password, who has never failed to sign in. */
  async function person(): Promise<string> {
    const email = `p-${randomBytes(4).toString('hex')}@example.com`;
    const invited = await t.request<{ data: { inviteUrl: string } }>('POST', 'users', { apiKey: org.apiKey, body: { email, role: 'viewer' } });
    await acceptLink(t, invited.body.data.inviteUrl, password);
    return email;
  }
  const signIn = (email: string, given: string, address: string) =>
    t.request<ErrorBody>('POST', 'session', { body: { email, password: given }, headers: { 'x-forwarded-for': address } });

  it('checks at most 5 of 100 parallel wrong passwords for one account, and refuses the rest with Retry-After', async () => {
    const email = await person();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, index) => signIn(email, `${wrongPassword} ${index}`, newAddress())));
    expect(counts(answers.map((answer) => answer.status))).toEqual({ 401: failuresPerAccount, 429: 100 - failuresPerAccount });
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    }
    const locked = await signIn(email, password, newAddress());
    expect(locked.status).toBe(429);
    expect(locked.body.error).toContain('Too many failed sign-ins for this account');
    clock.advance(15 * 60 * 1000 + 1);
    expect((await signIn(email, password, newAddress())).status).toBe(200);
  });

  it('lets a password reset link end an account\'s lock', async () => {
    const email = await person();
    for (let attempt = 1; attempt <= failuresPerAccount; attempt++) await signIn(email, wrongPassword, newAddress());
    expect((await signIn(email, password, newAddress())).status).toBe(429);
    const reset = await t.app.services.sessions.resetLink(email);
    await acceptLink(t, reset.url, 'a brand new password');
    expect((await signIn(email, 'a brand new password', newAddress())).status).toBe(200);
  });

  it('takes a successful attempt\'s reservation back: failures before a right password are forgotten', async () => {
    const email = await person();
    const address = newAddress();
    for (let attempt = 1; attempt < failuresPerAccount; attempt++) expect((await signIn(email, wrongPassword, address)).status).toBe(401);
    expect((await signIn(email, password, address)).status).toBe(200);
    for (let attempt = 1; attempt < failuresPerAccount; attempt++) expect((await signIn(email, wrongPassword, address)).status).toBe(401);
    expect((await signIn(email, password, address)).status).toBe(200);
  });

  it('never locks a person out for a stranger\'s failures at the same address beyond a short back-off', async () => {
    const email = await person();
    const shared = newAddress();
    const strangers = await Promise.all(Array.from({ length: failuresPerAddress }, (_, index) => signIn(`nobody-${index}@example.com`, wrongPassword, shared)));
    expect(strangers.every((answer) => answer.status === 401)).toBe(true);
    // The stranger retrying one account from the address over its limit waits the back-off.
    const again = await signIn('nobody-0@example.com', wrongPassword, shared);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(addressBackOffMs / 1000);

    expect((await signIn(email, password, shared)).status).toBe(200);
    expect((await signIn(email, wrongPassword, shared)).status).toBe(401);
    const backOff = await signIn(email, password, shared);
    expect(backOff.status).toBe(429);
    expect(Number(backOff.headers.get('retry-after'))).toBe(addressBackOffMs / 1000);
    clock.advance(addressBackOffMs);
    expect((await signIn(email, password, shared)).status).toBe(200);
  });

  it('looks a link\'s token up before anything else, and throttles bogus tokens per address, in parallel too', async () => {
    const address = newAddress();
    const accept = (token: string, given = password) =>
      t.request<ErrorBody>('POST', 'session/link/accept', { body: { token, password: given }, headers: { 'x-forwarded-for': address } });
    // A too-short password is not even looked at for an unknown token: the token is checked first.
    const bogus = await accept('bogus-token', 'short');
    expect(bogus.status).toBe(404);
    expect(bogus.body.code).toBe('NOT_FOUND');
    const answers = await Promise.all(Array.from({ length: 60 }, (_, index) => accept(`bogus-${index}`)));
    expect(counts(answers.map((answer) => answer.status))).toEqual({ 404: linkFailuresPerAddress - 1, 429: 60 - linkFailuresPerAddress + 1 });
    const described = await t.request<ErrorBody>('POST', 'session/link', { body: { token: 'bogus' }, headers: { 'x-forwarded-for': address } });
    expect(described.status).toBe(429);
    expect(Number(described.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    const elsewhere = await t.request<ErrorBody>('POST', 'session/link/accept', { body: { token: 'bogus', password }, headers: { 'x-forwarded-for': newAddress() } });
    expect(elsewhere.status).toBe(404);
  });

  it('takes the client address from X-Forwarded-For through the trusted proxy: in logs and for /metrics', async () => {
    const address = newAddress();
    const answer = await t.request('GET', '/healthz', { headers: { 'x-forwarded-for': `198.51.100.9, ${address}` } });
    const line = t.logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.reqId === answer.headers.get('x-request-id') && entry.msg === 'request');
    expect(line).toMatchObject({ ip: address });
    const metrics = await t.request<ErrorBody>('GET', '/metrics', { headers: { 'x-forwarded-for': address } });
    expect(metrics.status).toBe(403);
    expect((await t.request('GET', '/metrics')).status).toBe(200);
  });
});

describe('without VIGIL_TRUST_PROXY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t.close());

  it('ignores X-Forwarded-For: a client cannot pick its address to escape the throttle or reach /metrics', async () => {
    const attempts = await Promise.all(
      Array.from({ length: failuresPerAddress }, (_, index) =>
        t.request('POST', 'session', { body: { email: `spoof-${index}@example.com`, password: wrongPassword }, headers: { 'x-forwarded-for': `198.51.100.${index}` } }),
      ),
    );
    expect(attempts.every((answer) => answer.status === 401)).toBe(true);
    const retried = await t.request('POST', 'session', { body: { email: 'spoof-0@example.com', password: wrongPassword }, headers: { 'x-forwarded-for': '192.0.2.77' } });
    expect(retried.status).toBe(429);
    expect((await t.request('GET', '/metrics', { headers: { 'x-forwarded-for': '192.0.2.77' } })).status).toBe(200);
  });
});

describe('password hashing', () => {
  it('runs at most half the thread pool at once; the rest wait their turn', async () => {
    const decoy = '$argon2id$v=19$m=19456,t=2,p=1$YGyyIsXlpMwO1jTyc3LmEQ$1CXQCqW8PhbzwAeahZFbMixzUHs9RJ8ehF08XmKzEI0';
    const checks = Array.from({ length: 12 }, () => passwordMatches(decoy, wrongPassword));
    const load = passwordHashingLoad();
    expect(load).toEqual({ running: load.slots, waiting: 12 - load.slots, slots: Math.floor((Number(process.env.UV_THREADPOOL_SIZE) || 4) / 2) });
    expect(await Promise.all(checks)).toEqual(Array(12).fill(false));
    expect(passwordHashingLoad()).toMatchObject({ running: 0, waiting: 0 });
  });
});
