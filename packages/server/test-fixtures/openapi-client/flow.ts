// What a user of a client generated from Vigil's OpenAPI document writes: openapi-typescript's
// types with openapi-fetch, no cast anywhere. test/openapi-tools.test.ts typechecks and runs it.
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function uploadAndExport(baseUrl: string, apiKey: string, projectId: string, csv: string) {
  const vigil = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

  const uploaded = await vigil.POST('/api/v1/projects/{id}/datasets', {
    params: { path: { id: projectId }, query: { name: 'sales' } },
    headers: { 'Content-Type': 'text/csv' },
    body: csv,
    bodySerializer: (text) => text,
  });
  if (uploaded.error) throw new Error(`${uploaded.error.code}: ${uploaded.error.error}`);
  const dataset = uploaded.data.data;

  const created = await vigil.POST('/api/v1/exports', { body: { resource: 'dataset', format: 'csv', datasetId: dataset.id } });
  if (created.error) throw new Error(`${created.error.code}: ${created.error.error}`);
  let exported = created.data.data;
  while (exported.status === 'pending' || exported.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const polled = await vigil.GET('/api/v1/exports/{id}', { params: { path: { id: exported.id } } });
    if (polled.error) throw new Error(`${polled.error.code}: ${polled.error.error}`);
    exported = polled.data.data;
  }

  const file = await vigil.GET('/api/v1/exports/{id}/download', { params: { path: { id: exported.id } }, parseAs: 'text' });
  if (file.error) throw new Error(`${file.error.code}: ${file.error.error}`);
  const fileName: string | null = exported.fileName;
  return {
    rowCount: dataset.rowCount,
    columns: dataset.columns.map((column) => `${column.name}:${column.type}`),
    fileName,
    disposition: file.response.headers.get('content-disposition'),
    text: file.data,
  };
}
