import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import multipart, { type MultipartFields } from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { badFile, tooLarge } from '../../data/file-problems.js';
import { logRequest } from '../../platform/logger.js';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, refTo, responses } from '../../platform/route-schemas.js';
import { schemaCompiler } from '../../platform/validation.js';
import { Dataset, DatasetListQuery, RowsPage, UploadBody, UploadQuery } from './schema.js';
import type { DatasetService, Upload } from './service.js';

/** Raw upload bodies are handed to the service as a stream, never buffered here. */
const rawUploadTypes = [
  'text/csv',
  'text/plain',
  'text/tab-separated-values',
  'application/csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/octet-stream',
];

/** Multipart text fields sent before the file may carry the same options as the query string. */
function optionFields(fields: MultipartFields): Pick<Upload, 'name' | 'sheet' | 'types'> {
  const options: Pick<Upload, 'name' | 'sheet' | 'types'> = {};
  for (const key of ['name', 'sheet', 'types'] as const) {
    const field = fields[key];
    const value = !Array.isArray(field) && field?.type === 'field' ? String(field.value) : undefined;
    if (value) options[key] = value;
  }
  return options;
}

/**
 * busboy's failures on a cut or malformed multipart body ("Unexpected end of form", "Part
 * terminated early", or the file stream closing early) are the sender's: 422, not 500.
 */
const brokenMultipart = (error: unknown): unknown =>
  error instanceof Error && !('statusCode' in error) && (!('code' in error) || error.code === 'ERR_STREAM_PREMATURE_CLOSE')
    ? badFile(`The multipart body is incomplete or malformed (${error.message}).`)
    : error;

async function* readingMultipart(file: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* file;
  } catch (error) {
    throw brokenMultipart(error);
  }
}

async function uploadOf(request: FastifyRequest, maxUploadBytes: number): Promise<Upload> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxUploadBytes + 1024 * 1024) throw tooLarge(maxUploadBytes);
  if (!request.isMultipart()) {
    return { body: request.body as AsyncIterable<Buffer>, contentType: request.headers['content-type']?.split(';')[0].trim() };
  }
  const file = await request.file({ limits: { fileSize: maxUploadBytes + 1, files: 1 } }).catch((error: unknown) => {
    throw brokenMultipart(error);
  });
  if (!file || file.fieldname !== 'file') throw badFile('Send the file in the multipart field "file".');
  return { body: readingMultipart(file.file), fileName: file.filename, contentType: file.mimetype, ...optionFields(file.fields) };
}

/**
 * The raw body as the service reads it. Piped, so that a reader that stops early ends the pipe
 * and not the request itself; a client that goes away fails the pipe at once, so the upload is
 * undone now rather than by the sweep hours later.
 */
function rawBody(payload: NodeJS.ReadableStream, request: IncomingMessage): PassThrough {
  const body = payload.pipe(new PassThrough());
  const abandoned = () => {
    if (!request.complete) body.destroy(badFile('The upload was cut off before the end of the file.'));
  };
  request.once('aborted', abandoned);
  request.once('close', abandoned);
  request.once('error', abandoned);
  return body;
}

/** How long the rest of a refused upload is read and dropped, at most. */
const drainMs = 10_000;

/**
 * An upload refused part-way (413, 422) leaves the rest of its body unsent or unread. Closing the
 * connection at once would reset it under a client still sending, whose system then drops the
 * answer it had not read yet: curl and fetch report "connection reset" or EPIPE instead of the
 * 422 that says what was wrong. So the rest is read and dropped, and the connection kept, for at
 * most `drainMs` and one more upload's worth of bytes; a client sending beyond that is cut off.
 */
function discardRest(request: IncomingMessage, maxBytes: number): void {
  request.unpipe();
  let left = maxBytes;
  const cutOff = () => request.socket.destroy();
  const timer = setTimeout(cutOff, drainMs);
  request.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) cutOff();
  });
  // Whichever comes first: the connection may stay open for the client's next request.
  request.once('end', () => clearTimeout(timer));
  request.once('close', () => clearTimeout(timer));
  request.resume();
}

export const datasetRoutes: FastifyPluginAsyncTypebox<{ datasets: DatasetService }> = async (app, { datasets }) => {
  const { maxUploadBytes, uploadsPerOrganization } = datasets;
  await app.register(multipart);
  // The upload takes files, never JSON: a JSON body is 415 naming what it takes.
  for (const type of ['text/plain', 'application/json']) if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
  app.addContentTypeParser(rawUploadTypes, (request, payload, done) => done(null, rawBody(payload, request.raw)));
  app.addHook('onSend', async (request) => {
    if (!request.raw.complete) discardRest(request.raw, maxUploadBytes);
  });
  // An upload the client abandons is never answered, so the app's response hook never logs it.
  app.addHook('onRequestAbort', (request, done) => {
    logRequest(request, { aborted: true });
    done();
  });

  app.post(
    '/projects/:id/datasets',
    {
      config: { accepts: ['multipart/form-data', ...rawUploadTypes] },
      schema: {
        ...operation(
          'uploadDataset',
          'datasets.upload',
          'Upload a CSV or Excel file as a dataset',
          'multipart/form-data with the field "file", or the file itself as the body (text/csv, the xlsx media type, ' +
            'or text/tab-separated-values, text/plain, application/csv, application/octet-stream). ' +
            `At most VIGIL_MAX_UPLOAD_MB (${Math.round(maxUploadBytes / 1024 / 1024)} MiB on this server). Answers 201 with the dataset ready. ` +
            `An organization loads at most VIGIL_UPLOADS_PER_ORG files at once (${uploadsPerOrganization} on this server); more wait their turn, and one still waiting after VIGIL_UPLOAD_QUEUE_MS is 429 with Retry-After.`,
        ),
        params: IdParams,
        querystring: UploadQuery,
        body: UploadBody,
        response: responses(
          { 201: single(Dataset) },
          { 409: 'The dataset was deleted while the file was uploading.', 413: 'The file is larger than this server accepts.' },
        ),
      },
      // The body is a stream that the ingest pipeline reads and checks as it goes: its schemas document it.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : schemaCompiler(route)),
    },
    async (request, reply) => {
      const upload = { ...(await uploadOf(request, maxUploadBytes)), ...request.query };
      const dataset = await datasets.upload(request.caller.orgId, request.params.id, upload);
      return reply.status(201).send({ data: dataset });
    },
  );

  app.get(
    '/datasets',
    {
      schema: {
        ...operation('listDatasets', 'datasets.list', 'List datasets', 'Uploaded and imported, newest first, optionally of one project.'),
        querystring: DatasetListQuery,
        response: responses({ 200: listOf(Dataset) }),
      },
    },
    (request) => {
      const { projectId, ...page } = request.query;
      return datasets.list(request.caller.orgId, projectId, page);
    },
  );

  app.get(
    '/datasets/:id',
    { schema: { ...operation('retrieveDataset', 'datasets.retrieve', 'Retrieve a dataset'), params: IdParams, response: responses({ 200: single(Dataset) }) } },
    async (request) => ({ data: await datasets.get(request.caller.orgId, request.params.id) }),
  );

  app.get(
    '/datasets/:id/rows',
    {
      schema: {
        ...operation('listDatasetRows', 'datasets.rows', "Read a dataset's rows", 'In file order, a page at a time.'),
        params: IdParams,
        querystring: PageQuery,
        response: responses({ 200: refTo(RowsPage) }, { 409: 'The dataset is not ready (importing or failed).' }),
      },
    },
    (request) => datasets.rows(request.caller.orgId, request.params.id, request.query),
  );

  app.delete(
    '/datasets/:id',
    {
      schema: {
        ...operation('deleteDataset', 'datasets.delete', 'Delete a dataset', 'Its table and rows go with it.'),
        params: IdParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await datasets.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
