// The entry point for Node.js (the "node" export condition): the same package, plus Web Crypto
// from node:crypto for Node 18, which has no global `crypto`. Edge runtimes never load this file.
import { webcrypto } from 'node:crypto';
import { useWebCrypto } from './web-crypto.js';

useWebCrypto(webcrypto as unknown as Crypto);

export * from './index.js';
export { default } from './index.js';
