import type { Queryable } from '../../db/connect.js';
import { FreshCache } from '../../platform/fresh-cache.js';
import { findGrantByHash, type KeyGrant } from './store.js';

/**
 * What a key grants, kept for 500 ms: authentication costs no database round trip on most
 * requests, and a revocation (or plan change) made by any process takes effect everywhere within
 * one second.
 */
export class GrantCache extends FreshCache<KeyGrant | undefined> {
  constructor(db: Queryable, maxAgeMs = 500, maxEntries = 10_000) {
    super((keyHash) => findGrantByHash(db, keyHash), maxAgeMs, maxEntries);
  }
}
