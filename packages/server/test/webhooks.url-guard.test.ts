import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.js';
import { WebhookSender } from '../src/webhooks/sender.js';
import { blockedReason, checkWebhookUrl, type ResolveAll, UrlRejectedError } from '../src/webhooks/url-guard.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';

/** Names under example.test resolve where this table says; everything else does not resolve. */
const zone: Record<string, string[]> = {
  'private.example.test': ['10.1.2.3'],
  'loopback.example.test': ['127.0.0.1'],
  'metadata.example.test': ['169.254.169.254'],
  'cgnat.example.test': ['100.64.0.7'],
  'ula.example.test': ['fd00::1'],
  'mixed.example.test': ['93.184.216.34', '192.168.1.20'],
  'v6loop.example.test': ['::1'],
  'mapped.example.test': ['::ffff:10.0.0.1'],
  'public.example.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example.test': ['127.0.0.1'],
};
const resolveAll: ResolveAll = async (hostname) => {
  const addresses = zone[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const hostile: [url: string, reason: RegExp][] = [
  ['http://example.com/hook', /must use https:/],
  ['ftp://example.com/hook', /must use https:/],
  ['file:///etc/passwd', /must use https:/],
  ['gopher://127.0.0.1:6379/_INFO', /must use https:/],
  ['javascript:alert(1)', /must use https:/],
  ['not a url', /not a valid absolute URL/],
  ['https://user:pass@example.com/hook', /user name or password/],
  ['https://token@example.com/hook', /user name or password/],
  ['https://127.0.0.1/hook', /loopback/],
  ['https://127.255.255.254/', /loopback/],
  ['https://2130706433/', /loopback/],
  ['https://0x7f000001/', /loopback/],
  ['https://0x7f.1/', /loopback/],
  ['https://017700000001/', /loopback/],
  ['https://0177.0.0.1/', /loopback/],
  ['https://127.1/', /loopback/],
  ['https://%31%32%37.0.0.1/', /loopback/],
  ['https://[::1]/', /loopback/],
  ['https://0.0.0.0/', /unspecified/],
  ['https://0/', /unspecified/],
  ['https://0.1.2.3/', /unspecified/],
  ['https://[::]/', /unspecified/],
  ['https://10.0.0.1/', /private/],
  ['https://172.16.5.4/', /private/],
  ['https://172.31.255.255/', /private/],
  ['https://192.168.0.1/', /private/],
  ['https://3232235521/', /private/],
  ['https://0xc0a80001/', /private/],
  ['https://100.64.0.1/', /carrier-grade NAT/],
  ['https://169.254.169.254/latest/meta-data/', /link-local/],
  ['https://0xa9fea9fe/', /link-local/],
  ['https://2852039166/', /link-local/],
  ['https://[fe80::1]/', /link-local/],
  ['https://[fc00::1]/', /unique local/],
  ['https://[fd12:3456:789a::1]/', /unique local/],
  ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/],
  ['https://[::ffff:169.254.169.254]/', /IPv4-mapped/],
  ['https://[::ffff:10.0.0.1]/', /IPv4-mapped/],
  ['https://[::127.0.0.1]/', /IPv4-compatible/],
  ['https://224.0.0.1/', /multicast/],
  ['https://[ff02::1]/', /multicast/],
  ['https://255.255.255.255/', /broadcast/],
  ['https://240.0.0.1/', /reserved/],
  ['https://192.0.2.10/', /reserved/],
  ['https://[64:ff9b::a00:1]/', /NAT64/],
  ['https://[2002:7f00:1::]/', /6to4/],
  ['https://localhost/', /private network/],
  ['https://LOCALHOST./', /private network/],
  ['https://api.localhost/', /private network/],
  ['https://metadata.google.internal/computeMetadata/v1/', /private network/],
  ['https://printer.local/', /private network/],
  ['https://intranet/', /private network/],
  ['https://private.example.test/hook', /resolves to 10\.1\.2\.3, a private address/],
  ['https://loopback.example.test/hook', /resolves to 127\.0\.0\.1, a loopback/],
  ['https://metadata.example.test/', /resolves to 169\.254\.169\.254, a link-local/],
  ['https://cgnat.example.test/', /carrier-grade NAT/],
  ['https://ula.example.test/', /unique local/],
  ['https://mixed.example.test/', /resolves to 192\.168\.1\.20/],
  ['https://v6loop.example.test/', /resolves to ::1, a loopback/],
  ['https://mapped.example.test/', /IPv4-mapped/],
];

describe('webhook url guard', () => {
  it(`holds ${hostile.length} hostile urls to a table of reasons`, async () => {
    expect(hostile.length).toBeGreaterThanOrEqual(40);
    for (const [url, reason] of hostile) {
      const outcome = await checkWebhookUrl(url, { allowPrivate: false, resolveAll }).then(
        () => 'accepted',
        (error: unknown) => (error instanceof UrlRejectedError ? error.message : `threw ${String(error)}`),
      );
      expect(outcome, url).toMatch(reason);
    }
  });

  it('accepts public addresses, public names, and names that do not resolve yet', async () => {
    for (const url of [
      'https://93.184.216.34/hook',
      'https://[2606:2800:220:1:248:1893:25c8:1946]/hook',
      'https://public.example.test/hook?x=1',
      'https://not-registered-yet.example.test/hook',
    ]) {
      await expect(checkWebhookUrl(url, { allowPrivate: false, resolveAll }), url).resolves.toBeInstanceOf(URL);
    }
  });

  it('lets local development reach loopback over http only when allowPrivate is on, and still refuses credentials', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true, resolveAll })).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://localhost/hook', { allowPrivate: true, resolveAll })).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://u:p@localhost/hook', { allowPrivate: true, resolveAll })).rejects.toThrow(/password/);
  });

  it('names the range of every refused address', () => {
    expect(blockedReason('8.8.8.8')).toBeUndefined();
    expect(blockedReason('169.254.169.254')).toMatch(/metadata/);
    expect(blockedReason('::ffff:8.8.8.8')).toMatch(/IPv4-mapped/);
  });
});

describe('webhook sends check the address again when they connect', () => {
  let receiver: Receiver;
  let sender: WebhookSender;

  beforeAll(async () => {
    receiver = await Receiver.start();
    sender = new WebhookSender({
      clock: systemClock,
      timeoutMs: 2000,
      allowPrivate: false,
      connectionsPerOrigin: 2,
      ca: [testTls().ca],
      resolveAll,
    });
  });
  afterAll(async () => {
    await sender.close();
    await receiver.close();
  });

  it('refuses at connect time a name that resolves to loopback now (DNS rebinding) and never reaches the receiver', async () => {
    const port = new URL(receiver.url()).port;
    const outcome = await sender.send({ url: `https://rebind.example.test:${port}/hook`, headers: {}, body: '{}' });
    expect(outcome).toMatchObject({ error: 'blocked_address', httpStatus: null });
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses an address literal in the url before connecting, and records dns for a name that does not resolve', async () => {
    const port = new URL(receiver.url()).port;
    expect(await sender.send({ url: `https://127.0.0.1:${port}/hook`, headers: {}, body: '{}' })).toMatchObject({ error: 'blocked_address' });
    expect(await sender.send({ url: 'https://gone.example.test/hook', headers: {}, body: '{}' })).toMatchObject({ error: 'dns' });
    expect(receiver.requests).toHaveLength(0);
  });
});
