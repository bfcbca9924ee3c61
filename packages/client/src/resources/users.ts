import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { InvitedUser, User } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type UserInviteParams = BodyOf<Operation<'/api/v1/users', 'post'>>;
export type UserUpdateParams = BodyOf<Operation<'/api/v1/users/{id}', 'patch'>>;
export type UserListParams = FiltersOf<Operation<'/api/v1/users', 'get'>>;

export class Users extends APIResource {
  list(params?: UserListParams, options?: RequestOptions): PagePromise<User> {
    return this.page('/users', params, options);
  }

  /** Invites someone by email; the answer's `inviteUrl` is where they set a password. */
  invite(params: UserInviteParams, options?: RequestOptions): APIPromise<InvitedUser> {
    return this.requestData({ method: 'POST', path: '/users', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<User> {
    return this.requestData({ method: 'GET', path: `/users/${segment(id)}`, options });
  }

  update(id: string, params: UserUpdateParams, options?: RequestOptions): APIPromise<User> {
    return this.requestData({ method: 'PATCH', path: `/users/${segment(id)}`, body: params, options });
  }

  activate(id: string, options?: RequestOptions): APIPromise<User> {
    return this.requestData({ method: 'POST', path: `/users/${segment(id)}/activate`, options });
  }

  deactivate(id: string, options?: RequestOptions): APIPromise<User> {
    return this.requestData({ method: 'POST', path: `/users/${segment(id)}/deactivate`, options });
  }
}
