import type { Queryable } from '../../db/connect.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import { hashToken, newToken } from './secrets.js';
import { insertPasswordLink } from './store.js';

export const passwordLinkLifetimeMs = 7 * 24 * 60 * 60 * 1000;

/**
 * Makes the one-time link (valid 7 days) where a person sets a password, and returns its address.
 * The token travels in the fragment, which browsers never send to a server, so it cannot end up
 * in a request log.
 */
export async function issuePasswordLink(
  tx: Queryable,
  clock: Clock,
  siteUrl: string,
  user: { orgId: string; userId: string },
): Promise<string> {
  const at = clock.now();
  const token = newToken();
  await insertPasswordLink(tx, {
    id: newId('passwordLink', at.getTime()),
    orgId: user.orgId,
    userId: user.userId,
    tokenHash: hashToken(token),
    at,
    expiresAt: new Date(at.getTime() + passwordLinkLifetimeMs),
  });
  return `${siteUrl}/welcome#token=${token}`;
}
