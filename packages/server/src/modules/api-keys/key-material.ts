import { hash, randomBytes } from 'node:crypto';

const keyPattern = /^svc_live_[0-9a-f]{64}$/;

export function generateApiKey(): string {
  return `svc_live_${randomBytes(32).toString('hex')}`;
}

export function isWellFormedApiKey(value: string): boolean {
  return keyPattern.test(value);
}

/** Runs on every API request: the one-shot `hash` costs less than half a `createHash` (no Hash object). */
export function hashApiKey(apiKey: string): string {
  return hash('sha256', apiKey, 'hex');
}

/** Enough to recognise a key in a list, far too little to guess it. */
export function displayPrefix(apiKey: string): string {
  return `${apiKey.slice(0, 'svc_live_'.length + 6)}…`;
}
