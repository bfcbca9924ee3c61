import {
  buildSchema,
  getNamedType,
  getNullableType,
  GraphQLEnumType,
  type GraphQLField,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLScalarType,
  type GraphQLType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaSource } from '../src/graphql/executable-schema.js';
import { startTestApp, type TestApp } from './support/app.js';

interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  $ref?: string;
}
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** The REST answers each GraphQL type stands for (several: a field only some carry is nullable in GraphQL). */
const mirrors: Record<string, [method: string, path: string][]> = {
  Project: [['get', '/projects/{id}']],
  Alert: [['get', '/alerts/{id}']],
  User: [['get', '/users/{id}']],
  Connection: [['get', '/connections/{id}']],
  QueryRecord: [['get', '/history']],
  UsageStats: [['get', '/usage']],
  Webhook: [
    ['get', '/webhooks/{id}'],
    ['post', '/webhooks'],
  ],
  Dataset: [['get', '/datasets/{id}']],
  AIResponse: [['post', '/chat']],
};
/** Fields GraphQL adds to follow a relation; REST has the id beside them. */
const relations = new Set(['Project.alerts', 'Alert.project', 'Alert.assignee', 'QueryRecord.project', 'Dataset.project']);
/** Strings in GraphQL since its first release though REST lists their values: an enum now would change what clients read. */
const stringsOverRestEnums = new Set(['Connection.sslMode', 'UsageStats.plan', 'DatasetColumn.type']);
const operationTypes = new Set(['Query', 'Mutation', 'Subscription']);

describe('every GraphQL object type against the REST schema it mirrors', () => {
  let t: TestApp;
  let document: OpenApi;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    document = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as OpenApi;
  });
  afterAll(() => t.close());

  const resolve = (schema: JsonSchema): JsonSchema =>
    schema.$ref ? resolve(document.components.schemas[schema.$ref.slice('#/components/schemas/'.length)]) : schema;

  function dataOf(method: string, path: string): JsonSchema {
    const responses = document.paths[`/api/v1${path}`][method].responses;
    const success = Object.entries(responses).find(([status]) => status.startsWith('2'))![1];
    const data = resolve(resolve(success.content!['application/json'].schema).properties!.data);
    return data.type === 'array' ? resolve(data.items!) : data;
  }

  /** The schema without null, and whether null was allowed. */
  function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
    const resolved = resolve(schema);
    if (Array.isArray(resolved.type) && resolved.type.includes('null')) {
      const rest = resolved.type.filter((type) => type !== 'null');
      return { schema: { ...resolved, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
    }
    const options = resolved.anyOf?.filter((option) => resolve(option).type !== 'null');
    if (resolved.anyOf && options!.length < resolved.anyOf.length) return { schema: options!.length === 1 ? resolve(options![0]) : { anyOf: options }, nullable: true };
    return { schema: resolved, nullable: false };
  }

  /** What differs between a GraphQL type and a REST schema (null already taken off both). */
  function compare(where: string, type: GraphQLType, rest: JsonSchema, covered: Set<string>, problems: string[]): void {
    if (type instanceof GraphQLList) {
      if (rest.type !== 'array') return void problems.push(`${where}: a list in GraphQL, ${JSON.stringify(rest.type)} in REST`);
      const item = withoutNull(rest.items!);
      if (item.nullable === type.ofType instanceof GraphQLNonNull) problems.push(`${where}: list items nullable in one API only`);
      return compare(`${where}[]`, getNullableType(type.ofType), item.schema, covered, problems);
    }
    if (type instanceof GraphQLObjectType) {
      if (rest.type !== 'object') return void problems.push(`${where}: an object in GraphQL, ${JSON.stringify(rest.type)} in REST`);
      return compareObject(type, [rest], covered, problems);
    }
    if (type instanceof GraphQLEnumType) {
      const values = type.getValues().map((value) => value.name.toLowerCase());
      if (JSON.stringify(values) !== JSON.stringify(rest.enum)) problems.push(`${where}: enum ${type.name} is ${values} in lowercase, REST lists ${rest.enum}`);
      return;
    }
    const scalar = (type as GraphQLScalarType).name;
    if (rest.enum && !stringsOverRestEnums.has(where)) problems.push(`${where}: ${scalar} in GraphQL, an enum (${rest.enum}) in REST`);
    const expected: Record<string, (schema: JsonSchema) => boolean> = {
      ID: (schema) => schema.type === 'string',
      String: (schema) => schema.type === 'string' && schema.format !== 'date-time',
      DateTime: (schema) => schema.type === 'string' && schema.format === 'date-time',
      Int: (schema) => schema.type === 'integer',
      Float: (schema) => schema.type === 'number' || schema.type === 'integer',
      Boolean: (schema) => schema.type === 'boolean',
      JSON: () => true,
    };
    if (!expected[scalar]?.(rest)) problems.push(`${where}: ${scalar} in GraphQL, ${JSON.stringify({ type: rest.type, format: rest.format })} in REST`);
  }

  function compareObject(type: GraphQLObjectType, sources: JsonSchema[], covered: Set<string>, problems: string[]): void {
    covered.add(type.name);
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
      const where = `${type.name}.${field.name}`;
      const carried = sources.filter((source) => source.properties?.[field.name]);
      if (relations.has(where)) {
        if (carried.length) problems.push(`${where}: listed as a GraphQL-only relation, but REST has it`);
        if (!(getNamedType(field.type) instanceof GraphQLObjectType)) problems.push(`${where}: a relation must name an object type`);
        continue;
      }
      if (!carried.length) {
        problems.push(`${where}: not in the REST schema it mirrors`);
        continue;
      }
      const { schema, nullable } = withoutNull(carried[0].properties![field.name]);
      const everywhere = carried.length === sources.length && sources.every((source) => source.required?.includes(field.name));
      const restNonNull = everywhere && !nullable;
      if (restNonNull !== field.type instanceof GraphQLNonNull) {
        problems.push(`${where}: ${field.type instanceof GraphQLNonNull ? 'non-null' : 'nullable'} in GraphQL, ${restNonNull ? 'always present' : 'absent or null at times'} in REST`);
      }
      compare(where, getNullableType(field.type), schema, covered, problems);
    }
  }

  it('has each field under the REST name, as nullable as REST, its enums the REST values in capitals', () => {
    const schema = buildSchema(schemaSource);
    const covered = new Set<string>();
    const problems: string[] = [];
    for (const [name, sources] of Object.entries(mirrors)) {
      compareObject(schema.getType(name) as GraphQLObjectType, sources.map(([method, path]) => dataOf(method, path)), covered, problems);
    }
    expect(problems).toEqual([]);
    const objectTypes = Object.values(schema.getTypeMap()).filter(
      (type) => type instanceof GraphQLObjectType && !type.name.startsWith('__') && !operationTypes.has(type.name),
    );
    expect(objectTypes.map((type) => type.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  it('finds a field that drifted', () => {
    const drifted = buildSchema(schemaSource.replace('  assigneeId: ID\n', '  assigneeId: ID!\n  severityScore: Int\n'));
    const problems: string[] = [];
    compareObject(drifted.getType('Alert') as GraphQLObjectType, [dataOf('get', '/alerts/{id}')], new Set(), problems);
    expect(problems).toEqual(['Alert.assigneeId: non-null in GraphQL, absent or null at times in REST', 'Alert.severityScore: not in the REST schema it mirrors']);
  });
});
