import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { CreateProject, Project, UpdateProject } from './schema.js';
import type { ProjectService } from './service.js';

export const projectRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService }> = async (app, { projects }) => {
  const tags = ['projects'];

  app.get('/projects', { schema: { tags, querystring: PageQuery, response: responses({ 200: listOf(Project) }) } }, (request) =>
    projects.list(request.caller.orgId, request.query),
  );

  app.post('/projects', { schema: { tags, body: CreateProject, response: responses({ 201: single(Project) }) } }, async (request, reply) =>
    reply.status(201).send({ data: await projects.create(request.caller.orgId, request.body) }),
  );

  app.get('/projects/:id', { schema: { tags, params: IdParams, response: responses({ 200: single(Project) }) } }, async (request) => ({
    data: await projects.get(request.caller.orgId, request.params.id),
  }));

  app.patch(
    '/projects/:id',
    { schema: { tags, params: IdParams, body: UpdateProject, response: responses({ 200: single(Project) }) } },
    async (request) => ({ data: await projects.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete('/projects/:id', { schema: { tags, params: IdParams, response: responses({ 204: NoContent }) } }, async (request, reply) => {
    await projects.delete(request.caller.orgId, request.params.id);
    return reply.status(204).send(null);
  });
};
