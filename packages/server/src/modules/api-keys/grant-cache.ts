import type { Queryable } from '../../db/connect.js';
import { findGrantByHash, type KeyGrant } from './store.js';

/**
 * Keeps what a key grants for a short while, so authentication costs no database round trip on
 * most requests. The freshness bound is what makes a revocation (or plan change) made by any
 * process take effect everywhere within one second.
 */
export class GrantCache {
  private readonly entries = new Map<string, { grant: Promise<KeyGrant | undefined>; fetchedAt: number }>();

  constructor(
    private readonly db: Queryable,
    private readonly maxAgeMs = 500,
    private readonly maxEntries = 10_000,
  ) {}

  lookup(keyHash: string): Promise<KeyGrant | undefined> {
    const now = Date.now();
    const cached = this.entries.get(keyHash);
    if (cached && now - cached.fetchedAt < this.maxAgeMs) return cached.grant;
    const grant = findGrantByHash(this.db, keyHash);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { grant, fetchedAt: now });
    grant.catch(() => this.entries.delete(keyHash));
    return grant;
  }

  forget(keyHash?: string): void {
    if (keyHash === undefined) this.entries.clear();
    else this.entries.delete(keyHash);
  }
}
