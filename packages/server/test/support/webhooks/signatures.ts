import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What a receiver does, written independently of Vigil's signer: X-Service-Signature over the body. */
export function serviceSignatureValid(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(String(headers['x-service-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Standard Webhooks: does any `v1,` entry of webhook-signature match this secret? */
export function standardSignatureValid(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`;
  const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'));
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .map((entry) => Buffer.from(entry.replace(/^v1,/, '')))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
