import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's own response serializers (fast-json-stringify), each built once per distinct schema
 * instead of once per route and status: every route answers its 4xx and 5xx with the same Error
 * schema, and many share their success schema, so building one per route and status took about a
 * second of every process's start.
 */
export const sharedSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const built = new Map<string, Serializer>();
  return (route) => {
    const key = JSON.stringify(route.schema);
    let serializer = built.get(key);
    if (!serializer) {
      serializer = compile(route);
      built.set(key, serializer);
    }
    return serializer;
  };
};
