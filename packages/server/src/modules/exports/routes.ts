import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, responses } from '../../platform/route-schemas.js';
import { CreateExport, Export } from './schema.js';
import type { ExportService } from './service.js';

const asciiName = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_');

export const exportRoutes: FastifyPluginAsyncTypebox<{ exports: ExportService }> = async (app, { exports }) => {
  const tags = ['exports'];

  app.get('/exports', { schema: { tags, querystring: PageQuery, response: responses({ 200: listOf(Export) }) } }, (request) =>
    exports.list(request.caller.orgId, request.query),
  );

  app.post(
    '/exports',
    {
      schema: {
        tags,
        description: 'Answers 202 with the export pending; the worker writes the file, and GET /exports/{id} then shows it completed or failed.',
        body: CreateExport,
        response: responses({ 202: single(Export) }),
      },
    },
    async (request, reply) => reply.status(202).send({ data: await exports.create(request.caller.orgId, request.body) }),
  );

  app.get('/exports/:id', { schema: { tags, params: IdParams, response: responses({ 200: single(Export) }) } }, async (request) => ({
    data: await exports.get(request.caller.orgId, request.params.id),
  }));

  app.get(
    '/exports/:id/download',
    {
      schema: {
        tags,
        description: 'The file of a completed export (CSV, JSON or xlsx), as an attachment.',
        params: IdParams,
        response: responses({ 200: Type.Unsafe({ type: 'string', format: 'binary' }) }),
      },
    },
    async (request, reply) => {
      const file = await exports.download(request.caller.orgId, request.params.id);
      const encoded = encodeURIComponent(file.fileName);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${asciiName(file.fileName)}"; filename*=UTF-8''${encoded}`)
        .send(createReadStream(file.path));
    },
  );
};
