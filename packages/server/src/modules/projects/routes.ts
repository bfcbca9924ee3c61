import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { CreateProject, Project, UpdateProject } from './schema.js';
import type { ProjectService } from './service.js';

const oneProject = responses({ 200: single(Project) });

export const projectRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService }> = async (app, { projects }) => {
  app.get(
    '/projects',
    { schema: { ...operation('listProjects', 'projects.list', 'List projects'), querystring: PageQuery, response: responses({ 200: listOf(Project) }) } },
    (request) => projects.list(request.caller.orgId, request.query),
  );

  app.post(
    '/projects',
    { schema: { ...operation('createProject', 'projects.create', 'Create a project'), body: CreateProject, response: responses({ 201: single(Project) }) } },
    async (request, reply) => reply.status(201).send({ data: await projects.create(request.caller.orgId, request.body) }),
  );

  app.get(
    '/projects/:id',
    { schema: { ...operation('retrieveProject', 'projects.retrieve', 'Retrieve a project'), params: IdParams, response: oneProject } },
    async (request) => ({ data: await projects.get(request.caller.orgId, request.params.id) }),
  );

  app.patch(
    '/projects/:id',
    { schema: { ...operation('updateProject', 'projects.update', 'Update a project'), params: IdParams, body: UpdateProject, response: oneProject } },
    async (request) => ({ data: await projects.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/projects/:id',
    {
      schema: {
        ...operation('deleteProject', 'projects.delete', 'Delete a project', 'Deletes its alerts and datasets with it; one project.deleted event announces all.'),
        params: IdParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await projects.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
