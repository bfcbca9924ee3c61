import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, responses } from '../../platform/route-schemas.js';
import { InviteUser, InvitedUser, UpdateUser, User, UserFilters } from './schema.js';
import type { UserService } from './service.js';

const UserListQuery = Type.Composite([PageQuery, UserFilters]);

export const userRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (app, { users }) => {
  app.get(
    '/users',
    { schema: { ...operation('listUsers', 'users.list', 'List users'), querystring: UserListQuery, response: responses({ 200: listOf(User) }) } },
    (request) => {
      const { limit, cursor, ...filters } = request.query;
      return users.list(request.caller.orgId, filters, { limit, cursor });
    },
  );

  app.post(
    '/users',
    {
      schema: {
        ...operation('inviteUser', 'users.invite', 'Invite a user', 'The user is invited until they set a password at the one-time inviteUrl (valid 7 days) in the answer.'),
        body: InviteUser,
        response: responses({ 201: single(InvitedUser) }, { 409: 'A user with this email already belongs to the organization.' }),
      },
    },
    async (request, reply) => {
      const { user, inviteUrl } = await users.invite(request.caller.orgId, request.body);
      return reply.status(201).send({ data: { ...user, inviteUrl } });
    },
  );

  app.get(
    '/users/:id',
    { schema: { ...operation('retrieveUser', 'users.retrieve', 'Retrieve a user'), params: IdParams, response: responses({ 200: single(User) }) } },
    async (request) => ({ data: await users.get(request.caller.orgId, request.params.id) }),
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        ...operation('updateUser', 'users.update', "Change a user's role or name"),
        params: IdParams,
        body: UpdateUser,
        response: responses({ 200: single(User) }, { 409: 'The user is the last active admin and would stop being one.' }),
      },
    },
    async (request) => ({ data: await users.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.post(
    '/users/:id/deactivate',
    {
      schema: {
        ...operation('deactivateUser', 'users.deactivate', 'Deactivate a user'),
        params: IdParams,
        response: responses({ 200: single(User) }, { 409: 'The user is deactivated already, or is the last active admin.' }),
      },
    },
    async (request) => ({ data: await users.deactivate(request.caller.orgId, request.params.id) }),
  );

  app.post(
    '/users/:id/activate',
    {
      schema: {
        ...operation('activateUser', 'users.activate', 'Activate a deactivated user'),
        params: IdParams,
        response: responses({ 200: single(User) }, { 409: 'The user is active already.' }),
      },
    },
    async (request) => ({ data: await users.activate(request.caller.orgId, request.params.id) }),
  );
};
