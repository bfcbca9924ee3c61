import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, responses } from '../../platform/route-schemas.js';
import { CreateExport, Export, ExportFile } from './schema.js';
import type { ExportService } from './service.js';

const asciiName = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_');

export const exportRoutes: FastifyPluginAsyncTypebox<{ exports: ExportService }> = async (app, { exports }) => {
  app.get(
    '/exports',
    { schema: { ...operation('listExports', 'exports.list', 'List exports'), querystring: PageQuery, response: responses({ 200: listOf(Export) }) } },
    (request) => exports.list(request.caller.orgId, request.query),
  );

  app.post(
    '/exports',
    {
      schema: {
        ...operation(
          'createExport',
          'exports.create',
          'Export alerts, query history or a dataset to a file',
          'Answers 202 with the export pending; the worker writes the file, and GET /exports/{id} then shows it completed or failed.',
        ),
        body: CreateExport,
        response: responses({ 202: single(Export) }, { 409: 'The dataset is not ready (importing or failed).' }),
      },
    },
    async (request, reply) => reply.status(202).send({ data: await exports.create(request.caller.orgId, request.body) }),
  );

  app.get(
    '/exports/:id',
    { schema: { ...operation('retrieveExport', 'exports.retrieve', 'Retrieve an export'), params: IdParams, response: responses({ 200: single(Export) }) } },
    async (request) => ({ data: await exports.get(request.caller.orgId, request.params.id) }),
  );

  app.get(
    '/exports/:id/download',
    {
      schema: {
        ...operation(
          'downloadExport',
          'exports.download',
          "Download a completed export's file",
          'The file as an attachment, in the format the export was created with. 404 also once the file has expired.',
        ),
        params: IdParams,
        response: responses({ 200: ExportFile }, { 409: 'The export is not completed yet (pending, running or failed).' }),
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
