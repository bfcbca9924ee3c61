import type { Queryable } from '../../db/connect.js';
import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { ApiError, conflict, found } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { issuePasswordLink } from '../sessions/links.js';
import { revokeUserSessions } from '../sessions/store.js';
import type { InviteUser, Role, UpdateUser, User, UserFilters } from './schema.js';
import { countActiveAdmins, findUser, findUsers, insertUser, listUsers, lockAdminChanges, updateUser } from './store.js';

/** A user just added, with the one-time link where they set a password. */
export interface InvitedUser {
  user: User;
  inviteUrl: string;
}

export class UserService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, filters: UserFilters, page: PageQuery): Promise<Page<User>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listUsers(this.ctx.db, orgId, filters, window), window);
  }

  async get(orgId: string, id: string): Promise<User> {
    return found(await findUser(this.ctx.db, orgId, id), 'user');
  }

  /** Many at once (GraphQL's batched loads); missing or foreign ids are left out. */
  getMany(orgId: string, ids: readonly string[]): Promise<User[]> {
    return findUsers(this.ctx.db, orgId, ids);
  }

  async invite(orgId: string, input: InviteUser): Promise<InvitedUser> {
    return this.ctx.db.transaction((tx) => this.inviteIn(tx, orgId, input));
  }

  /**
   * Adds an invited user and their invitation link inside the caller's transaction (organization
   * creation invites its founding admin this way). The user joins by accepting the link.
   */
  async inviteIn(tx: Queryable, orgId: string, input: InviteUser): Promise<InvitedUser> {
    const user = await this.add(tx, orgId, { ...input, status: 'invited' });
    await recordEvent(tx, this.ctx.clock, orgId, 'user.invited', user);
    const inviteUrl = await issuePasswordLink(tx, this.ctx.clock, this.ctx.config.siteUrl, { orgId, userId: user.id });
    return { user, inviteUrl };
  }

  /** An invited user accepted their invitation: they become active. */
  async join(tx: Queryable, orgId: string, id: string): Promise<User> {
    const user = await this.lockUser(tx, orgId, id);
    if (user.status !== 'invited') return user;
    const joined = await updateUser(tx, orgId, id, { status: 'active', at: this.ctx.clock.now() });
    await recordEvent(tx, this.ctx.clock, orgId, 'user.joined', joined);
    return joined;
  }

  async update(orgId: string, id: string, input: UpdateUser): Promise<User> {
    return this.ctx.db.transaction(async (tx) => {
      const user = await this.lockUser(tx, orgId, id);
      if (input.role !== undefined && input.role !== 'admin') await this.keepAnAdmin(tx, orgId, user);
      return updateUser(tx, orgId, id, { role: input.role, name: input.name, at: this.ctx.clock.now() });
    });
  }

  async deactivate(orgId: string, id: string): Promise<User> {
    return this.ctx.db.transaction(async (tx) => {
      const user = await this.lockUser(tx, orgId, id);
      if (user.status === 'deactivated') throw conflict('This user is already deactivated.');
      await this.keepAnAdmin(tx, orgId, user);
      const at = this.ctx.clock.now();
      const updated = await updateUser(tx, orgId, id, { status: 'deactivated', at });
      await revokeUserSessions(tx, orgId, id, at);
      await recordEvent(tx, this.ctx.clock, orgId, 'user.deactivated', updated);
      return updated;
    });
  }

  async activate(orgId: string, id: string): Promise<User> {
    return this.ctx.db.transaction(async (tx) => {
      const user = await this.lockUser(tx, orgId, id);
      if (user.status === 'active') throw conflict('This user is already active.');
      const updated = await updateUser(tx, orgId, id, { status: 'active', at: this.ctx.clock.now() });
      await recordEvent(tx, this.ctx.clock, orgId, 'user.activated', updated);
      return updated;
    });
  }

  private async add(
    tx: Queryable,
    orgId: string,
    input: { email: string; role: Role; name?: string; status: User['status'] },
  ): Promise<User> {
    const at = this.ctx.clock.now();
    const user = await insertUser(tx, {
      id: newId('user', at.getTime()),
      orgId,
      email: input.email,
      name: input.name ?? null,
      role: input.role,
      status: input.status,
      at,
    });
    if (!user) throw new ApiError('CONFLICT', 'A user with this email already belongs to the organization.');
    return user;
  }

  private async lockUser(tx: Queryable, orgId: string, id: string): Promise<User> {
    return found(await findUser(tx, orgId, id, true), 'user');
  }

  /** An organization always keeps one active admin, or nobody could manage its keys again. */
  private async keepAnAdmin(tx: Queryable, orgId: string, user: User): Promise<void> {
    if (user.role !== 'admin' || user.status !== 'active') return;
    await lockAdminChanges(tx, orgId);
    if ((await countActiveAdmins(tx, orgId)) <= 1) {
      throw conflict('This is the last active admin of the organization; make another user admin first.');
    }
  }
}
