import type { Queryable } from '../../db/connect.js';
import type { Clock } from '../../platform/clock.js';
import { FreshCache } from '../../platform/fresh-cache.js';
import { findGrantByHash, type KeyGrant } from './store.js';

/**
 * What a key grants, kept for 500 ms: authentication costs no database round trip on most
 * requests, and a revocation (or plan change) made by any process takes effect everywhere within
 * one second. The period is measured on the app's clock: real time in production.
 */
export class GrantCache extends FreshCache<KeyGrant | undefined> {
  constructor(db: Queryable, clock: Clock, maxAgeMs = 500, maxEntries = 10_000) {
    super((keyHash) => findGrantByHash(db, keyHash), maxAgeMs, maxEntries, clock);
  }
}
