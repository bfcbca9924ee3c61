import type { Queryable } from '../../db/connect.js';
import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { ApiError, conflict, found } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { checkValue } from '../../platform/validation.js';
import { Email, type InviteUser, type Role, type UpdateUser, type User, type UserFilters } from './schema.js';
import { countActiveAdmins, findUser, findUsers, insertUser, listUsers, lockAdminChanges, updateUser } from './store.js';

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

  async invite(orgId: string, input: InviteUser): Promise<User> {
    return this.ctx.db.transaction(async (tx) => {
      const user = await this.add(tx, orgId, { ...input, status: 'invited' });
      await recordEvent(tx, this.ctx.clock, orgId, 'user.invited', user);
      return user;
    });
  }

  /** The organization's founding admin, active from the start (used when an organization is created). */
  async addFounder(tx: Queryable, orgId: string, email: string): Promise<User> {
    checkValue(Email, email, 'adminEmail');
    const user = await this.add(tx, orgId, { email, role: 'admin', status: 'active' });
    await recordEvent(tx, this.ctx.clock, orgId, 'user.joined', user);
    return user;
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
      const updated = await updateUser(tx, orgId, id, { status: 'deactivated', at: this.ctx.clock.now() });
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
