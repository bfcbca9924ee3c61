import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLFieldResolver, GraphQLObjectType, type GraphQLSchema } from 'graphql';

export const schemaSource = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

type FieldResolvers = Record<string, GraphQLFieldResolver<never, never> | { subscribe: GraphQLFieldResolver<never, never>; resolve: GraphQLFieldResolver<never, never> }>;

/**
 * The SDL with the resolvers attached to its fields, as one GraphQLSchema that both mercurius
 * (HTTP) and graphql-ws (WebSocket) execute. Every resolver must name a field of the SDL.
 */
export function executableSchema(resolvers: Record<string, FieldResolvers>): GraphQLSchema {
  const schema = buildSchema(schemaSource);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`resolvers name ${typeName}, which is not an object type of the schema`);
    const definitions = type.getFields();
    for (const [fieldName, resolver] of Object.entries(fields)) {
      const field = definitions[fieldName];
      if (!field) throw new Error(`resolvers name ${typeName}.${fieldName}, which is not in the schema`);
      if (typeof resolver === 'function') field.resolve = resolver as GraphQLFieldResolver<unknown, unknown>;
      else {
        field.subscribe = resolver.subscribe as GraphQLFieldResolver<unknown, unknown>;
        field.resolve = resolver.resolve as GraphQLFieldResolver<unknown, unknown>;
      }
    }
  }
  return schema;
}
