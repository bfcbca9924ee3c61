/** The parts of the served OpenAPI document that the schema-driven tests (fuzz, contract) read. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  minimum?: number;
  minItems?: number;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

export interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** A schema with its references followed, a union's first branch with properties taken, and allOf merged. */
export function resolve(spec: OpenApi, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let depth = 0; current.$ref && depth < 10; depth += 1) {
    current = spec.components?.schemas?.[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  const branch = current.anyOf ?? current.oneOf;
  if (branch) return resolve(spec, branch.find((option) => option.properties) ?? branch[0]);
  if (!current.allOf) return current;
  return current.allOf.reduce<Schema>((all, part) => {
    const resolved = resolve(spec, part);
    return { ...all, ...resolved, properties: { ...all.properties, ...resolved.properties }, required: [...(all.required ?? []), ...(resolved.required ?? [])] };
  }, {});
}
