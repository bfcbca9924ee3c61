import { VigilError } from './errors.js';

let fallback: Crypto | undefined;

/** Node 18 has Web Crypto only as `require('node:crypto').webcrypto`; its entry point (node.ts) hands it over here. */
export function useWebCrypto(crypto: Crypto): void {
  fallback = crypto;
}

/** The runtime's Web Crypto: global everywhere but in Node 18. */
export function webCrypto(): Crypto {
  const crypto = (globalThis as { crypto?: Crypto }).crypto ?? fallback;
  if (!crypto?.subtle) throw new VigilError('This runtime has no Web Crypto (globalThis.crypto); @vigil/client needs it.');
  return crypto;
}
