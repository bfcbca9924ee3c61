import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, responses } from '../../platform/route-schemas.js';
import { InviteUser, InvitedUser, UpdateUser, User, UserFilters } from './schema.js';
import type { UserService } from './service.js';

const UserListQuery = Type.Composite([PageQuery, UserFilters]);
const oneUser = responses({ 200: single(User) });

export const userRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (app, { users }) => {
  const tags = ['users'];

  app.get('/users', { schema: { tags, querystring: UserListQuery, response: responses({ 200: listOf(User) }) } }, (request) => {
    const { limit, cursor, ...filters } = request.query;
    return users.list(request.caller.orgId, filters, { limit, cursor });
  });

  app.post('/users', { schema: { tags, body: InviteUser, response: responses({ 201: single(InvitedUser) }) } }, async (request, reply) => {
    const { user, inviteUrl } = await users.invite(request.caller.orgId, request.body);
    return reply.status(201).send({ data: { ...user, inviteUrl } });
  });

  app.get('/users/:id', { schema: { tags, params: IdParams, response: oneUser } }, async (request) => ({
    data: await users.get(request.caller.orgId, request.params.id),
  }));

  app.patch('/users/:id', { schema: { tags, params: IdParams, body: UpdateUser, response: oneUser } }, async (request) => ({
    data: await users.update(request.caller.orgId, request.params.id, request.body),
  }));

  app.post('/users/:id/deactivate', { schema: { tags, params: IdParams, response: oneUser } }, async (request) => ({
    data: await users.deactivate(request.caller.orgId, request.params.id),
  }));

  app.post('/users/:id/activate', { schema: { tags, params: IdParams, response: oneUser } }, async (request) => ({
    data: await users.activate(request.caller.orgId, request.params.id),
  }));
};
