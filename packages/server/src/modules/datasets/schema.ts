import { Type, type Static } from '@sinclair/typebox';
import { columnTypes } from '../../data/column-types.js';
import { PageQuery } from '../../platform/pagination.js';
import { NullableString, StringEnum, Timestamp } from '../../platform/route-schemas.js';

export const datasetStatuses = ['importing', 'ready', 'failed'] as const;
export type DatasetStatus = (typeof datasetStatuses)[number];
export const datasetSources = ['upload', 'connection'] as const;
export type DatasetSource = (typeof datasetSources)[number];


export const DatasetColumnSchema = Type.Object({
  name: Type.String({ description: 'The column in the dataset table: a lowercase SQL identifier.' }),
  originalName: Type.String({ description: 'The header cell or source column it came from.' }),
  type: StringEnum(columnTypes),
});

export const Dataset = Type.Object({
  id: Type.String({ examples: ['ds_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
  projectId: Type.String(),
  name: Type.String(),
  tableName: Type.String({ description: "The table in the project's schema that holds the rows." }),
  status: StringEnum(datasetStatuses),
  source: StringEnum(datasetSources),
  connectionId: NullableString(),
  rowCount: Type.Integer(),
  columns: Type.Array(DatasetColumnSchema),
  sizeBytes: Type.Integer(),
  error: NullableString(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Dataset = Static<typeof Dataset>;

export const DatasetListQuery = Type.Composite([PageQuery, Type.Object({ projectId: Type.Optional(Type.String({ maxLength: 100 })) })]);

export const UploadQuery = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The dataset name; the file name without extension when omitted.' })),
  sheet: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Excel only: the worksheet to read; the first when omitted.' })),
  types: Type.Optional(
    Type.String({
      maxLength: 20_000,
      description: 'Column types to use instead of inferred ones: "column:type,column:type" (integer, numeric, boolean, date, timestamp, text).',
    }),
  ),
});
export type UploadQuery = Static<typeof UploadQuery>;

export const RowsPage = Type.Object({
  data: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Rows in file order, keyed by column name.' }),
  meta: Type.Object({ limit: Type.Integer(), hasMore: Type.Boolean(), nextCursor: NullableString() }),
});
