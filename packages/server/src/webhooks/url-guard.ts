import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Every address a name resolves to; injectable so tests can make names resolve anywhere. */
export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface UrlPolicy {
  /** Local development and tests only: loopback and private targets, and http:, are allowed. */
  allowPrivate: boolean;
  resolveAll?: ResolveAll;
}

/** A url Vigil will not call; the message completes the sentence "url …". */
export class UrlRejectedError extends Error {
  constructor(
    message: string,
    /** True when the url is well formed but its host is an address Vigil refuses to call. */
    readonly blockedAddress = false,
    /** True when the allow-private setting of development would accept it (a private host, or http:). */
    readonly allowedWhenPrivate = blockedAddress,
  ) {
    super(message);
    this.name = 'UrlRejectedError';
  }
}

/** The refusal, and for what development allows the setting that allows it: a local receiver's author reads where to turn. */
export function withDevelopmentHint(error: UrlRejectedError, setting: string): string {
  if (!error.allowedWhenPrivate) return error.message;
  return `${error.message}; for a target on this machine or a private network in development, start Vigil with ${setting}=true`;
}

/** Raised from inside a connection's DNS lookup, so the attempt records `blocked_address`. */
export class BlockedAddressError extends Error {
  readonly code = 'EVIGILBLOCKED';

  constructor(hostname: string, address: string, reason: string) {
    super(`${hostname} resolves to ${address}, ${reason}`);
    this.name = 'BlockedAddressError';
  }
}

const rangeReasons: Record<string, string> = {
  unspecified: 'an unspecified address (0.0.0.0/8 or ::)',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (169.254.0.0/16 holds the cloud metadata service)',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (RFC 1918)',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique local IPv6 address (fc00::/7)',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 IPv6 address that embeds an IPv4 address',
  '6to4': 'a 6to4 IPv6 address that embeds an IPv4 address',
  teredo: 'a Teredo IPv6 address that embeds an IPv4 address',
};

/** Why Vigil must not connect to this address, or undefined for a public unicast address. */
export function blockedReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const ip = ipaddr.parse(address);
  const range = ip.range();
  if (ip.kind() === 'ipv6' && range === 'unicast' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    return 'an IPv4-compatible IPv6 address';
  }
  if (range === 'unicast') return undefined;
  return rangeReasons[range] ?? `a special-purpose address (${range})`;
}

/** Names that by definition stay inside a network, whatever a resolver answers for them. */
function internalName(hostname: string): boolean {
  if (!hostname.includes('.')) return true;
  return ['localhost', 'local', 'internal', 'intranet', 'lan', 'home.arpa', 'localdomain'].some(
    (suffix) => hostname === suffix || hostname.endsWith(`.${suffix}`),
  );
}

export interface CheckedUrl {
  url: URL;
  /** The host without IPv6 brackets or a trailing dot. */
  hostname: string;
  isAddress: boolean;
}

/**
 * The checks that need no DNS: scheme, credentials, and the host's spelling. The WHATWG parser
 * already turns decimal, octal, hex and short IPv4 forms (2130706433, 0177.0.0.1, 0x7f.1, 127.1)
 * into dotted quads, so each numeric spelling meets the same range check as the plain one.
 */
export function checkUrlForm(raw: string, allowPrivate: boolean): CheckedUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRejectedError('is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new UrlRejectedError(`must use https:, not ${url.protocol}`, false, url.protocol === 'http:');
  }
  if (url.username || url.password) throw new UrlRejectedError('must not contain a user name or password');
  const hostname = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (!hostname) throw new UrlRejectedError('has no host');
  const isAddress = isIP(hostname) !== 0;
  if (!allowPrivate) {
    if (isAddress) {
      const reason = blockedReason(hostname);
      if (reason) throw new UrlRejectedError(`points to ${hostname}, ${reason}`, true);
    } else if (internalName(hostname)) {
      throw new UrlRejectedError(`points to ${hostname}, a name that only exists inside a private network`, true);
    }
  }
  return { url, hostname, isAddress };
}

/**
 * The full check at creation and update: the form, then every address the host resolves to. A
 * name that does not resolve yet is accepted: every send resolves and checks again.
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<URL> {
  const checked = checkUrlForm(raw, policy.allowPrivate);
  if (policy.allowPrivate || checked.isAddress) return checked.url;
  let addresses: { address: string }[];
  try {
    addresses = await (policy.resolveAll ?? systemResolveAll)(checked.hostname);
  } catch {
    return checked.url;
  }
  for (const { address } of addresses) {
    const reason = blockedReason(address);
    if (reason) throw new UrlRejectedError(`points to ${checked.hostname}, which resolves to ${address}, ${reason}`, true);
  }
  return checked.url;
}

/**
 * A `lookup` for net/tls connections: it resolves, refuses the connection when any address is
 * blocked, and hands over only the addresses it checked, so the socket connects to exactly what
 * was checked (no DNS rebinding between the check and the connection).
 */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  const resolveAll = policy.resolveAll ?? systemResolveAll;
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (!policy.allowPrivate) {
          for (const { address } of found) {
            const reason = blockedReason(address);
            if (reason) return callback(new BlockedAddressError(hostname, address, reason), '', 0);
          }
        }
        const first = wanted[0];
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address of the wanted family`);
          error.code = 'ENOTFOUND';
          return callback(error, '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: typeof wanted) => void)(null, wanted);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
