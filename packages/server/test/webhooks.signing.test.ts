import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextScheduledAttempt, retryAfterCapMs, retryAfterMs } from '../src/webhooks/schedule.js';
import { deliveryHeaders, generateSecret, serviceSignature, standardSignature } from '../src/webhooks/signer.js';

describe('webhook signatures', () => {
  it('matches the Standard Webhooks reference vector', () => {
    expect(standardSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('keys X-Service-Signature with the whole secret string, prefix included, over the exact body bytes', () => {
    const secret = 'whsec_c2VjcmV0LWJ5dGVzLWZvci10aGUtdGVzdC0xMjM0NTY3ODkw';
    const body = '{"event":"alert.created","data":{"title":"Ünïcode ✓"}}';
    expect(serviceSignature(secret, body)).toBe(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex')}`);
    expect(serviceSignature(secret, body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('signs with every secret it is given, current first, and puts the delivery id in both id headers', () => {
    const current = generateSecret();
    const previous = generateSecret();
    const headers = deliveryHeaders({ deliveryId: 'dlv_1', event: 'project.created', body: '{}', timestamp: 1700000000, secrets: [current, previous] });
    expect(headers['webhook-signature']).toBe(`${standardSignature(current, 'dlv_1', 1700000000, '{}')} ${standardSignature(previous, 'dlv_1', 1700000000, '{}')}`);
    expect(headers['x-service-signature']).toBe(serviceSignature(current, '{}'));
    expect(headers).toMatchObject({ 'webhook-id': 'dlv_1', 'x-service-delivery': 'dlv_1', 'webhook-timestamp': '1700000000', 'x-service-event': 'project.created' });
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});

describe('webhook retry schedule', () => {
  const schedule = [0, 60_000, 300_000, 900_000, 1_800_000];
  const at = new Date('2026-01-01T00:00:00.000Z');

  it('waits 1, 5, 15 and 30 minutes after attempts 1 to 4, and gives up after attempt 5', () => {
    expect([1, 2, 3, 4].map((done) => nextScheduledAttempt(schedule, done, at)!.getTime() - at.getTime())).toEqual([
      60_000, 300_000, 900_000, 1_800_000,
    ]);
    expect(nextScheduledAttempt(schedule, 5, at)).toBeNull();
  });

  it('honours a later Retry-After on 429 and 503, capped at one hour, and ignores it elsewhere', () => {
    expect(retryAfterMs(429, '120', at)).toBe(120_000);
    expect(retryAfterMs(503, 'Thu, 01 Jan 2026 00:10:00 GMT', at)).toBe(600_000);
    expect(retryAfterMs(500, '120', at)).toBeUndefined();
    expect(retryAfterMs(429, 'soon', at)).toBeUndefined();
    expect(nextScheduledAttempt(schedule, 1, at, 120_000)!.getTime() - at.getTime()).toBe(120_000);
    expect(nextScheduledAttempt(schedule, 1, at, 10_000)!.getTime() - at.getTime()).toBe(60_000);
    expect(nextScheduledAttempt(schedule, 1, at, 86_400_000)!.getTime() - at.getTime()).toBe(retryAfterCapMs);
  });
});
