import { Type, type Static } from '@sinclair/typebox';
import { NullableString, NullableTimestamp, StringEnum, Timestamp } from '../../platform/route-schemas.js';

export const dbTypes = ['postgresql', 'mysql'] as const;
export type DbType = (typeof dbTypes)[number];
export const sslModes = ['disable', 'prefer', 'require'] as const;
export type SslMode = (typeof sslModes)[number];
export const connectionStatuses = ['pending', 'connected', 'error'] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];

/** A connection as the API shows it: never the password. */
export const Connection = Type.Object(
  {
    id: Type.String({ examples: ['conn_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    name: Type.String(),
    dbType: StringEnum(dbTypes),
    host: Type.String(),
    port: Type.Integer(),
    database: Type.String(),
    username: Type.String(),
    sslMode: StringEnum(sslModes),
    status: StringEnum(connectionStatuses),
    lastError: NullableString(),
    lastCheckedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Connection' },
);
export type Connection = Static<typeof Connection>;

const settings = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  dbType: StringEnum(dbTypes),
  host: Type.String({ minLength: 1, maxLength: 253, description: 'A host name or an IP address.' }),
  port: Type.Integer({ minimum: 1, maximum: 65_535, description: '5432 for postgresql and 3306 for mysql when omitted.' }),
  database: Type.String({ minLength: 1, maxLength: 200 }),
  username: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ maxLength: 1000, description: 'Stored encrypted; never returned.' }),
  sslMode: StringEnum(sslModes, { description: '"prefer" when omitted: TLS when the server offers it.' }),
};

export const CreateConnection = Type.Object(
  { ...settings, port: Type.Optional(settings.port), sslMode: Type.Optional(settings.sslMode) },
  { additionalProperties: false },
);
export type CreateConnection = Static<typeof CreateConnection>;

export const UpdateConnection = Type.Partial(Type.Object(settings), { additionalProperties: false, minProperties: 1 });
export type UpdateConnection = Static<typeof UpdateConnection>;

export const ImportRequest = Type.Object(
  {
    projectId: Type.String({ minLength: 1, maxLength: 100 }),
    table: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'A table or view, optionally schema-qualified: "sales" or "public.sales".' })),
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'One read-only SELECT, run in a read-only transaction.' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The dataset name; the table name (or "query") when omitted.' })),
    datasetId: Type.Optional(
      Type.String({
        maxLength: 100,
        description: "Replace this dataset's rows (same id, name and table) instead of making a new dataset; the old rows stay until the new ones are all in.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportRequest = Static<typeof ImportRequest>;
