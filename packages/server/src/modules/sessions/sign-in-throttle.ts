import type { Db } from '../../db/connect.js';
import type { Clock } from '../../platform/clock.js';
import { ConcurrencyLimit, NoTurnInTime } from '../../platform/concurrency-limit.js';
import { RetryLater } from '../../platform/errors.js';
import { forgetFailures, insertFailures, lockScopes, recentFailures, removeOneFailure, type ScopeFailures } from './throttle-store.js';

export const failureWindowMs = 15 * 60 * 1000;
export const failuresPerAccount = 5;
export const failuresPerAddress = 20;
/** Past its limit, an address may still try each account once per back-off: a stranger sharing it locks nobody out. */
export const addressBackOffMs = 5_000;
export const linkFailuresPerAddress = 20;

/**
 * A flood of sign-ins queues here, in memory, rather than for the database pool: reservations of one
 * process hold at most two connections at once (each for a few short statements), so the API's
 * other requests keep theirs.
 */
const reservations = new ConcurrencyLimit(2, { ms: 10_000, waitingFor: 'sign-in check' });

/** Called once the attempt succeeded: its reserved failure is taken back. */
export type Release = () => Promise<void>;

const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));
const minutes = (seconds: number) => `${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}`;

/**
 * Sign-in and link throttles whose counts hold under parallel attempts in any number of processes:
 * each attempt records its failure *before* the password or link is checked, under a database
 * advisory lock on its scopes, and takes it back only when it succeeds. So N parallel wrong
 * passwords for one account are checked at most `failuresPerAccount` times, never N.
 */
export class SignInThrottle {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Reserves a failed sign-in of `email` from `address`, or refuses with 429 and Retry-After. */
  async reserveSignIn(email: string, address: string): Promise<Release> {
    const account = `email:${email.toLowerCase()}`;
    const fromAddress = `ip:${address}`;
    const accountFromAddress = `ip-email:${address} ${email.toLowerCase()}`;
    const at = await this.reserve([account, fromAddress], [accountFromAddress], (failures, now) => {
      const ofAccount = failures.get(account);
      if (ofAccount && ofAccount.count >= failuresPerAccount) {
        const retryAfter = secondsUntil(ofAccount.oldest.getTime() + failureWindowMs, now);
        return new RetryLater('RATE_LIMITED', `Too many failed sign-ins for this account. Wait ${minutes(retryAfter)}, or ask an admin for a password reset link.`, retryAfter);
      }
      const ofAddress = failures.get(fromAddress);
      const lastHere = failures.get(accountFromAddress);
      if (ofAddress && ofAddress.count >= failuresPerAddress && lastHere && lastHere.latest.getTime() + addressBackOffMs > now) {
        const retryAfter = secondsUntil(lastHere.latest.getTime() + addressBackOffMs, now);
        return new RetryLater('RATE_LIMITED', `Too many failed sign-ins from your network address. Wait ${retryAfter} seconds before trying this account again.`, retryAfter);
      }
      return undefined;
    });
    return async () => {
      await forgetFailures(this.db, [account, accountFromAddress]);
      await removeOneFailure(this.db, [fromAddress], at);
    };
  }

  /** A password just set through a one-time link: earlier failures of the account no longer count. */
  forgetAccount(email: string): Promise<void> {
    return forgetFailures(this.db, [`email:${email.toLowerCase()}`]);
  }

  /** Reserves a failed use of a one-time link from `address` (an unknown, used or expired token). */
  async reserveLinkUse(address: string): Promise<Release> {
    const scope = `link-ip:${address}`;
    const at = await this.reserve([scope], [], (failures, now) => {
      const ofAddress = failures.get(scope);
      if (!ofAddress || ofAddress.count < linkFailuresPerAddress) return undefined;
      const retryAfter = secondsUntil(ofAddress.oldest.getTime() + failureWindowMs, now);
      return new RetryLater('RATE_LIMITED', `Too many invalid links from your network address. Wait ${minutes(retryAfter)}, or ask an admin for a new link.`, retryAfter);
    });
    return () => removeOneFailure(this.db, [scope], at);
  }

  /**
   * Under the lock of `locked` (which also covers `covered`, a finer scope of the same attempt),
   * refuses when `decide` says so, else records one failure in every scope; returns its time.
   */
  private async reserve(
    locked: string[],
    covered: string[],
    decide: (failures: Map<string, ScopeFailures>, now: number) => RetryLater | undefined,
  ): Promise<Date> {
    const scopes = [...locked, ...covered];
    const reserve = () =>
      this.db.transaction(async (tx) => {
        await lockScopes(tx, locked);
        const at = this.clock.now();
        const refusal = decide(await recentFailures(tx, scopes, new Date(at.getTime() - failureWindowMs)), at.getTime());
        if (refusal) throw refusal;
        await insertFailures(tx, scopes, at);
        return at;
      });
    try {
      return await reservations.run('database', reserve);
    } catch (error) {
      if (error instanceof NoTurnInTime) throw new RetryLater('SERVICE_UNAVAILABLE', 'Too many sign-ins at once; try again in a moment.', 1);
      throw error;
    }
  }
}
