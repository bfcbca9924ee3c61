import { Type, type Static } from '@sinclair/typebox';
import { columnTypes } from '../../data/column-types.js';
import { ListMeta, PageQuery } from '../../platform/pagination.js';
import { NullableString, StringEnum, Timestamp, refTo } from '../../platform/route-schemas.js';

export const datasetStatuses = ['importing', 'ready', 'failed'] as const;
export type DatasetStatus = (typeof datasetStatuses)[number];
export const datasetSources = ['upload', 'connection'] as const;
export type DatasetSource = (typeof datasetSources)[number];

export const DatasetColumnSchema = Type.Object(
  {
    name: Type.String({ description: 'The column in the dataset table: a lowercase SQL identifier.' }),
    originalName: Type.String({ description: 'The header cell or source column it came from.' }),
    type: StringEnum(columnTypes),
  },
  { $id: 'DatasetColumn' },
);

export const Dataset = Type.Object(
  {
    id: Type.String({ examples: ['ds_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    projectId: Type.String(),
    name: Type.String(),
    tableName: Type.String({ description: "The table in the project's schema that holds the rows." }),
    status: StringEnum(datasetStatuses),
    source: StringEnum(datasetSources),
    connectionId: NullableString(),
    rowCount: Type.Integer(),
    columns: Type.Array(refTo(DatasetColumnSchema)),
    sizeBytes: Type.Integer(),
    error: NullableString(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Dataset' },
);
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

const xlsxMediaType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The upload's body, for the OpenAPI document: the service reads and checks the stream itself. */
export const UploadBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Object({
        name: UploadQuery.properties.name,
        sheet: UploadQuery.properties.sheet,
        types: UploadQuery.properties.types,
        file: Type.String({ format: 'binary', description: 'The CSV or xlsx file. Option fields (name, sheet, types) go before it.' }),
      }),
    },
    ...Object.fromEntries(
      ['text/csv', 'text/plain', 'text/tab-separated-values', 'application/csv'].map((type) => [
        type,
        { schema: Type.String({ format: 'binary', description: 'The CSV (or TSV) file itself, UTF-8, sent as it is; the delimiter is detected.' }) },
      ]),
    ),
    [xlsxMediaType]: { schema: Type.String({ format: 'binary', description: 'The Excel workbook itself.' }) },
    'application/octet-stream': { schema: Type.String({ format: 'binary', description: 'A CSV file or an Excel workbook, told apart by its first bytes.' }) },
  },
};

export const RowsPage = Type.Object(
  {
    data: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Rows in file order, keyed by column name.' }),
    meta: refTo(ListMeta),
  },
  { $id: 'DatasetRowsPage' },
);
