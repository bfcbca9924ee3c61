import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './models.js';
import { webCrypto } from './web-crypto.js';

/** The body exactly as received: verify before parsing, since re-serialized JSON is not the signed bytes. */
export type WebhookPayload = string | Uint8Array | ArrayBuffer;
/** A `Headers` object (fetch, Workers) or Node's `request.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Seconds a `webhook-timestamp` may differ from now (default 300). */
  tolerance?: number;
}

const secretPrefix = 'whsec_';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found.join(' ') : found;
}

type Bytes = Uint8Array<ArrayBuffer>;

function bytesOf(payload: WebhookPayload): Bytes {
  return typeof payload === 'string' ? encoder.encode(payload) : new Uint8Array(payload);
}

function base64Bytes(text: string): Bytes | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function hexBytes(text: string): Bytes | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(text)) return null;
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

function concat(...parts: Bytes[]): Bytes {
  const joined = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** HMAC-SHA256 checked by Web Crypto's `verify`, which compares in constant time. */
async function hmacMatches(key: Bytes, signature: Bytes, data: Bytes): Promise<boolean> {
  const { subtle } = webCrypto();
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return subtle.verify('HMAC', cryptoKey, signature, data);
}

/** Standard Webhooks: any `v1,<base64>` entry over `id.timestamp.body`, keyed by the secret's base64 part. */
async function standardSignatureMatches(body: Bytes, headers: WebhookHeaders, secret: string, tolerance: number): Promise<boolean> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature') ?? '';
  if (!id || !timestamp || !/^\d+$/.test(timestamp)) throw new WebhookVerificationError('The webhook-id or webhook-timestamp header is missing or malformed.');
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(`The webhook-timestamp is more than ${tolerance} seconds from now: a replay, or a clock that is off.`);
  }
  const key = base64Bytes(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret);
  if (!key) throw new WebhookVerificationError('The secret is not a whsec_ secret (whsec_ and base64).');
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    const signature = version === 'v1' && value ? base64Bytes(value) : null;
    if (signature && (await hmacMatches(key, signature, signed))) return true;
  }
  return false;
}

/** `X-Service-Signature: sha256=<hex>` over the body, keyed by the whole secret string. */
async function serviceSignatureMatches(body: Bytes, signatureHeader: string, secret: string): Promise<boolean> {
  const signature = signatureHeader.startsWith('sha256=') ? hexBytes(signatureHeader.slice('sha256='.length)) : null;
  return signature !== null && hmacMatches(encoder.encode(secret), signature, body);
}

/**
 * Checks that a webhook delivery comes from Vigil and returns its event, typed by name. Uses the
 * Standard Webhooks headers (any of the signatures, during a secret rotation; a timestamp within
 * `tolerance` seconds) or, when they are absent, `X-Service-Signature` (which carries no time).
 * Throws `WebhookVerificationError` when it does not check out.
 */
export async function verifyWebhook(
  rawBody: WebhookPayload,
  headers: WebhookHeaders,
  secret: string,
  { tolerance = 300 }: VerifyOptions = {},
): Promise<WebhookEvent> {
  const body = bytesOf(rawBody);
  const serviceSignature = header(headers, 'x-service-signature');
  let verified: boolean;
  if (header(headers, 'webhook-signature') !== undefined) verified = await standardSignatureMatches(body, headers, secret, tolerance);
  else if (serviceSignature !== undefined) verified = await serviceSignatureMatches(body, serviceSignature, secret);
  else throw new WebhookVerificationError('No signature: neither webhook-signature nor X-Service-Signature is present.');
  if (!verified) throw new WebhookVerificationError('The signature does not match this body and secret.');
  try {
    return JSON.parse(decoder.decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON.');
  }
}
