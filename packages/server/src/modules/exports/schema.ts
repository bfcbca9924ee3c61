import { Type, type Static } from '@sinclair/typebox';
import { contentTypeOf, exportFormats } from '../../data/export-writers.js';
import { NullableString, NullableTimestamp, StringEnum, Timestamp } from '../../platform/route-schemas.js';
import { SeverityEnum } from '../alerts/schema.js';

export const exportResources = ['alerts', 'history', 'dataset'] as const;
export type ExportResource = (typeof exportResources)[number];
export const exportStatuses = ['pending', 'running', 'completed', 'failed'] as const;
export type ExportStatus = (typeof exportStatuses)[number];

export const ExportFilters = Type.Object(
  {
    status: Type.Optional(Type.String({ maxLength: 50, description: 'alerts: active, acknowledged or resolved; history: the query status.' })),
    severity: Type.Optional(SeverityEnum),
    createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Only items created at or after this time.' })),
    createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'Only items created before this time.' })),
  },
  { additionalProperties: false },
);
export type ExportFilters = Static<typeof ExportFilters>;

export const Export = Type.Object(
  {
    id: Type.String({ examples: ['exp_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    resource: StringEnum(exportResources),
    format: StringEnum(exportFormats),
    projectId: NullableString(),
    datasetId: NullableString(),
    filters: ExportFilters,
    status: StringEnum(exportStatuses),
    error: NullableString(),
    fileName: NullableString(),
    sizeBytes: Type.Union([Type.Integer(), Type.Null()]),
    rowCount: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: NullableTimestamp,
    expiresAt: NullableTimestamp,
  },
  { $id: 'Export' },
);
export type Export = Static<typeof Export>;

export const CreateExport = Type.Object(
  {
    resource: StringEnum(exportResources),
    format: StringEnum(exportFormats),
    datasetId: Type.Optional(Type.String({ maxLength: 100, description: 'Required for resource "dataset".' })),
    projectId: Type.Optional(Type.String({ maxLength: 100, description: 'alerts and history: only this project.' })),
    filters: Type.Optional(ExportFilters),
  },
  { additionalProperties: false },
);
export type CreateExport = Static<typeof CreateExport>;

const mediaType = (contentType: string) => contentType.split(';')[0];

/**
 * The download's 200: one content entry per format (Fastify sends the file as a stream,
 * unserialized). Each is a binary string, JSON included, so that generated clients hand over the
 * file (a Blob or a stream) instead of parsing a CSV as JSON.
 */
export const ExportFile = Type.Unsafe<unknown>({
  description: "The export's file, in its format.",
  headers: {
    'Content-Disposition': Type.String({
      description: 'attachment, with the file name as filename (ASCII) and filename* (UTF-8).',
      examples: ['attachment; filename="alerts-20260102-030405.csv"; filename*=UTF-8\'\'alerts-20260102-030405.csv'],
    }),
  },
  content: {
    [mediaType(contentTypeOf.csv)]: { schema: Type.String({ format: 'binary', description: 'CSV, UTF-8, a header row first.' }) },
    [mediaType(contentTypeOf.json)]: {
      schema: Type.String({ format: 'binary', description: 'A JSON array with one object per row, keyed by column name.' }),
    },
    [mediaType(contentTypeOf.xlsx)]: { schema: Type.String({ format: 'binary', description: 'An Excel workbook with one sheet.' }) },
  },
});
