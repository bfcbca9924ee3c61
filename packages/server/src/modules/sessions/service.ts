import type { ServiceContext } from '../../platform/context.js';
import { ApiError, conflict, invalid, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { UserService } from '../users/service.js';
import { issuePasswordLink } from './links.js';
import { csrfTokenFor, hashPassword, hashToken, newToken, passwordMatches, sameSecret } from './secrets.js';
import { type Release, SignInThrottle } from './sign-in-throttle.js';
import {
  extendSession,
  findLiveSession,
  findPasswordLink,
  findSignInCandidates,
  findUsersByEmail,
  insertSession,
  markPasswordLinkUsed,
  revokeSession,
  revokeUserSessions,
  type SessionGrant,
  setPassword,
} from './store.js';

export const sessionLifetimeMs = 14 * 24 * 60 * 60 * 1000;
/** A session's expiry slides forward at most once an hour: not a write on every request. */
const refreshAfterMs = 60 * 60 * 1000;
export const passwordLength = { min: 10, max: 200 };

/** A session just opened: the token goes into the cookie, never anywhere else. */
export interface OpenedSession {
  token: string;
  grant: SessionGrant;
}

/** A session presented by a request; `extended` says its cookie should be sent again with the new expiry. */
export interface PresentedSession {
  grant: SessionGrant;
  extended: boolean;
}

// Checked when no account matches, so a wrong email takes as long as a wrong password.
const decoyHash = '$argon2id$v=19$m=19456,t=2,p=1$YGyyIsXlpMwO1jTyc3LmEQ$1CXQCqW8PhbzwAeahZFbMixzUHs9RJ8ehF08XmKzEI0';

/** Console sign-in: passwords, one-time links and server-side sessions. */
export class SessionService {
  private readonly throttle: SignInThrottle;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly users: UserService,
  ) {
    this.throttle = new SignInThrottle(ctx.db, ctx.clock);
  }

  csrfToken(sessionToken: string): string {
    return csrfTokenFor(this.ctx.config.secretKey, sessionToken);
  }

  csrfMatches(sessionToken: string, presented: string): boolean {
    return sameSecret(presented, this.csrfToken(sessionToken));
  }

  /**
   * Signs a person in. An email that belongs to several organizations needs `orgId`; without it
   * the answer is 409 naming the organizations whose password matched. The attempt's failure is
   * reserved before any password is checked (see sign-in-throttle.ts) and taken back on success.
   */
  async signIn(input: { email: string; password: string; orgId?: string }, address: string): Promise<OpenedSession> {
    const release = await this.throttle.reserveSignIn(input.email, address);
    const candidates = (await findSignInCandidates(this.ctx.db, input.email)).filter(
      (candidate) => input.orgId === undefined || candidate.orgId === input.orgId,
    );
    const matching = [];
    for (const candidate of candidates) {
      if (await passwordMatches(candidate.passwordHash, input.password)) matching.push(candidate);
    }
    if (candidates.length === 0) await passwordMatches(decoyHash, input.password);
    if (matching.length === 0) {
      throw new ApiError('UNAUTHORIZED', 'That email and password do not match an active account.');
    }
    await release();
    if (matching.length > 1) {
      throw new ApiError(
        'CONFLICT',
        'This email belongs to several organizations: choose one.',
        matching.map((candidate) => ({ field: 'orgId', message: `${candidate.orgId} ${candidate.orgName}` })),
      );
    }
    return this.open(matching[0].orgId, matching[0].userId);
  }

  /** The session a cookie's token belongs to, if it is still live; slides its expiry forward. */
  async present(token: string): Promise<PresentedSession | undefined> {
    const now = this.ctx.clock.now();
    const grant = await findLiveSession(this.ctx.db, hashToken(token), now);
    if (!grant) return undefined;
    const extended = now.getTime() - grant.refreshedAt.getTime() >= refreshAfterMs;
    if (extended) await extendSession(this.ctx.db, grant.sessionId, now, new Date(now.getTime() + sessionLifetimeMs));
    return { grant, extended };
  }

  async signOut(sessionId: string): Promise<void> {
    await revokeSession(this.ctx.db, sessionId, this.ctx.clock.now());
  }

  /** What the page behind a link shows before the person sets a password. */
  async describeLink(token: string, address: string): Promise<{ email: string; orgName: string; expiresAt: string }> {
    const link = await this.usableLink(token, await this.throttle.reserveLinkUse(address));
    return { email: link.email, orgName: link.orgName, expiresAt: link.expiresAt.toISOString() };
  }

  /**
   * Sets the password through a one-time link: an invited user joins (`user.joined`); a reset ends
   * the user's other sessions. Opens a session for the person who just proved they hold the link.
   * The token is looked up before the password is hashed: a bogus token costs no hashing.
   */
  async acceptLink(input: { token: string; password: string }, address: string): Promise<OpenedSession> {
    await this.usableLink(input.token, await this.throttle.reserveLinkUse(address));
    checkPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const user = await this.ctx.db.transaction(async (tx) => {
      const link = await findPasswordLink(tx, hashToken(input.token), true);
      this.checkUsable(link);
      const at = this.ctx.clock.now();
      await markPasswordLinkUsed(tx, link!.id, at);
      await setPassword(tx, link!.orgId, link!.userId, passwordHash, at);
      await revokeUserSessions(tx, link!.orgId, link!.userId, at);
      await this.users.join(tx, link!.orgId, link!.userId);
      return link!;
    });
    await this.throttle.forgetAccount(user.email);
    return this.open(user.orgId, user.userId);
  }

  /** A fresh one-time link for a person (the operator's `vigil user reset-link`); earlier links stop working. */
  async resetLink(email: string, orgId?: string): Promise<{ url: string; userId: string; orgId: string }> {
    const users = await findUsersByEmail(this.ctx.db, email, orgId);
    if (users.length === 0) throw notFound('user with that email');
    if (users.length > 1) {
      throw conflict(`That email belongs to ${users.length} organizations (${users.map((user) => user.orgId).join(', ')}): name one with --org.`);
    }
    const [user] = users;
    if (user.status === 'deactivated') throw conflict('That user is deactivated: activate them before sending a link.');
    const url = await this.ctx.db.transaction((tx) => issuePasswordLink(tx, this.ctx.clock, this.ctx.config.siteUrl, user));
    return { url, userId: user.userId, orgId: user.orgId };
  }

  private async open(orgId: string, userId: string): Promise<OpenedSession> {
    const at = this.ctx.clock.now();
    const token = newToken();
    const tokenHash = hashToken(token);
    await insertSession(this.ctx.db, {
      id: newId('session', at.getTime()),
      orgId,
      userId,
      tokenHash,
      at,
      expiresAt: new Date(at.getTime() + sessionLifetimeMs),
    });
    const grant = await findLiveSession(this.ctx.db, tokenHash, at);
    return { token, grant: grant! };
  }

  /** The link of a token, looked up under the link throttle: a usable one takes its reserved failure back. */
  private async usableLink(token: string, release: Release) {
    const link = await findPasswordLink(this.ctx.db, hashToken(token));
    this.checkUsable(link);
    await release();
    return link!;
  }

  private checkUsable(link: Awaited<ReturnType<typeof findPasswordLink>>): void {
    const gone = 'This link is not valid: it was already used, replaced by a newer one, or mistyped. Ask an admin for a new link.';
    if (!link || link.usedAt !== null) throw new ApiError('NOT_FOUND', gone);
    if (link.expiresAt.getTime() <= this.ctx.clock.now().getTime()) {
      throw new ApiError('NOT_FOUND', 'This link has expired (links last 7 days). Ask an admin for a new link.');
    }
    if (link.userStatus === 'deactivated') throw conflict('This account is deactivated. Ask an admin to activate it.');
  }

}

function checkPassword(password: string): void {
  if (password.length < passwordLength.min) invalidPassword(`must be at least ${passwordLength.min} characters`);
  if (password.length > passwordLength.max) invalidPassword(`must be at most ${passwordLength.max} characters`);
}

function invalidPassword(message: string): never {
  throw invalid('password', message);
}
