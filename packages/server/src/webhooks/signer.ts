import { createHmac, randomBytes } from 'node:crypto';

const secretPrefix = 'whsec_';

export const userAgent = 'Vigil-Webhooks/1.0';

/** `whsec_` + 32 random bytes in standard base64, as DESIGN §3.5 and Standard Webhooks expect. */
export function generateSecret(): string {
  return secretPrefix + randomBytes(32).toString('base64');
}

/** `X-Service-Signature`: HMAC-SHA256 over the exact body bytes, keyed by the whole secret string. */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** One `v1,<base64>` entry of `webhook-signature`, keyed by the bytes the secret's base64 part encodes. */
export function standardSignature(secret: string, deliveryId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(secretPrefix.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${deliveryId}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

export interface SignedRequest {
  deliveryId: string;
  event: string;
  body: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The current secret first; during a rotation's overlap, the previous one after it. */
  secrets: readonly string[];
}

export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  const [current] = request.secrets;
  if (current === undefined) throw new Error('A delivery needs at least one secret to sign with.');
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'x-service-event': request.event,
    'x-service-delivery': request.deliveryId,
    'x-service-signature': serviceSignature(current, request.body),
    'webhook-id': request.deliveryId,
    'webhook-timestamp': String(request.timestamp),
    'webhook-signature': request.secrets.map((secret) => standardSignature(secret, request.deliveryId, request.timestamp, request.body)).join(' '),
  };
}
