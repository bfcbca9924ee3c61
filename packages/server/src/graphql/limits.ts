import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getIntrospectionQuery,
  getNamedType,
  getNullableType,
  type GraphQLField,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isListType,
  isObjectType,
  isAbstractType,
  Kind,
  parse,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type ValueNode,
} from 'graphql';
import { maxColumns } from '../data/ingest.js';
import { eventNames } from '../events/catalog.js';

/** DESIGN §3.7. Checked before anything runs (before validation too); the standard introspection query passes. */
export const limits = {
  depth: 10,
  aliases: 30,
  cost: 5_000,
  /** Fields of one document once every fragment spread is expanded: bounds what validation compares. */
  nodes: 2_000,
  /** Characters of one query document. */
  querySize: 20_000,
  /** Lexical tokens of one query document (the parser stops counting there). */
  tokens: 5_000,
  /** Operations in one batched HTTP request. */
  batch: 10,
  /** What `first: null`, a `first` left out or a variable left null serves: the default page. */
  defaultFirst: 20,
};

export const tooComplex = (message: string) => new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX' } });
const invalidDocument = (message: string) => new GraphQLError(message, { extensions: { code: 'VALIDATION_ERROR' } });

/**
 * Lists that take no `first`: how long they can be, so that their cost is never below what they
 * serve. Introspection lists are bounded by this schema's own sizes (see introspectionBounds).
 */
const fixedListLengths: Record<string, number> = {
  'UsageStats.days': 31,
  'Dataset.columns': maxColumns,
  'Webhook.events': eventNames.length + 1,
};

/** The fields every type has without declaring them. */
const metaFields: Record<string, GraphQLField<unknown, unknown>> = { __schema: SchemaMetaFieldDef, __type: TypeMetaFieldDef, __typename: TypeNameMetaFieldDef };

/** One selection's measure; every number counts the selection with its fragments expanded. */
interface Measure {
  /** Fields (introspection included). */
  nodes: number;
  /** Nesting of fields; introspection fields do not count (their types nest deeply by design). */
  depth: number;
  /** Every field costs 1 plus its selection; a list multiplies that by its length (`first`). */
  cost: number;
  /** The same cost for `__schema` / `__type` selections, held to a budget of their own. */
  introspectionCost: number;
}

const none: Measure = { nodes: 0, depth: 0, cost: 0, introspectionCost: 0 };

export interface DocumentMeasure {
  aliases: number;
  /** The largest of any operation or fragment of the document. */
  nodes: number;
  depth: number;
  cost: number;
  introspectionCost: number;
  /** Whether a `first` read a variable: if not, the measure depends on the text alone. */
  readsVariables: boolean;
}

/**
 * Measures a whole document in time linear in its size: each fragment is measured once (kept by
 * name) and its measure reused at every spread, so a fragment spreading the next one twice, forty
 * levels deep, costs forty measures rather than 2^40 walks. A fragment that spreads itself, directly
 * or not, is refused (as validation would, which is not run on a document before it is measured).
 */
export class DocumentMeter {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly measured = new Map<string, Measure>();
  private readonly measuring = new Set<string>();
  private readonly variableDefaults = new Map<string, unknown>();
  private readsVariables = false;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly document: DocumentNode,
    private readonly variables: Record<string, unknown>,
    private readonly listLengths: Record<string, number>,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      for (const variable of definition.variableDefinitions ?? []) {
        // Two operations may give one name two defaults: the larger is kept, never underestimating.
        const value = variable.defaultValue?.kind === Kind.INT ? Number(variable.defaultValue.value) : undefined;
        const known = this.variableDefaults.get(variable.variable.name.value);
        if (value !== undefined && (typeof known !== 'number' || value > known)) this.variableDefaults.set(variable.variable.name.value, value);
      }
    }
  }

  measure(operationName: string | undefined): DocumentMeasure {
    // Every fragment and operation is measured, used or not: validation reads them all.
    let widest = 0;
    const operations: Measure[] = [];
    for (const definition of this.document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) widest = Math.max(widest, this.fragment(definition.name.value).nodes);
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const measure = this.selections(definition.selectionSet, this.schema.getRootType(definition.operation) ?? undefined);
      widest = Math.max(widest, measure.nodes);
      if (operationName === undefined || definition.name?.value === operationName) operations.push(measure);
    }
    const most = (of: (measure: Measure) => number) => Math.max(0, ...operations.map(of));
    return {
      aliases: this.countAliases(),
      nodes: widest,
      depth: most((each) => each.depth),
      cost: most((each) => each.cost),
      introspectionCost: most((each) => each.introspectionCost),
      readsVariables: this.readsVariables,
    };
  }

  private countAliases(): number {
    let aliases = 0;
    const visit = (set: SelectionSetNode | undefined) => {
      for (const selection of set?.selections ?? []) {
        if (selection.kind === Kind.FIELD && selection.alias) aliases++;
        if (selection.kind !== Kind.FRAGMENT_SPREAD) visit(selection.selectionSet);
      }
    };
    for (const definition of this.document.definitions) if ('selectionSet' in definition) visit(definition.selectionSet);
    return aliases;
  }

  private fragment(name: string): Measure {
    const known = this.measured.get(name);
    if (known) return known;
    const definition = this.fragments.get(name);
    if (!definition) return none; // validation names the unknown fragment
    if (this.measuring.has(name)) throw invalidDocument(`Cannot spread fragment "${name}" within itself.`);
    this.measuring.add(name);
    const measure = this.selections(definition.selectionSet, this.schema.getType(definition.typeCondition.name.value) ?? undefined);
    this.measuring.delete(name);
    this.measured.set(name, measure);
    return measure;
  }

  private selections(set: SelectionSetNode, parent: GraphQLNamedType | undefined): Measure {
    const total = { ...none };
    for (const selection of set.selections) {
      let measure: Measure;
      if (selection.kind === Kind.FIELD) measure = this.field(selection, parent);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) measure = this.fragment(selection.name.value);
      else measure = this.selections(selection.selectionSet, selection.typeCondition ? (this.schema.getType(selection.typeCondition.name.value) ?? undefined) : parent);
      total.nodes += measure.nodes;
      total.depth = Math.max(total.depth, measure.depth);
      total.cost += measure.cost;
      total.introspectionCost += measure.introspectionCost;
    }
    return total;
  }

  private field(node: FieldNode, parent: GraphQLNamedType | undefined): Measure {
    const name = node.name.value;
    const definition = metaFields[name] ?? (parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined);
    const child = node.selectionSet ? this.selections(node.selectionSet, definition ? getNamedType(definition.type) : undefined) : none;
    const length = definition && isListType(getNullableType(definition.type)) ? this.listLength(node, `${parent!.name}.${name}`) : 1;
    const cost = length * (1 + child.cost + child.introspectionCost);
    const introspection = name.startsWith('__');
    return {
      nodes: 1 + child.nodes,
      depth: introspection ? 0 : 1 + child.depth,
      cost: name === '__schema' || name === '__type' ? 0 : cost,
      introspectionCost: name === '__schema' || name === '__type' ? cost : 0,
    };
  }

  /** A list's length: its `first` (the default page when null, omitted or a variable left null), else its known bound. */
  private listLength(node: FieldNode, coordinate: string): number {
    const first = node.arguments?.find((argument) => argument.name.value === 'first');
    if (first) return pageSize(this.valueOf(first.value));
    if (coordinate in this.listLengths) return this.listLengths[coordinate];
    return limits.defaultFirst;
  }

  private valueOf(value: ValueNode): unknown {
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind !== Kind.VARIABLE) return undefined;
    this.readsVariables = true;
    const given = this.variables[value.name.value];
    return given ?? this.variableDefaults.get(value.name.value);
  }
}

/** A page is `first` items; anything else that is not a refusal (null, a missing value) is the default page. */
const pageSize = (first: unknown) => (typeof first === 'number' && Number.isFinite(first) ? Math.max(0, first) : limits.defaultFirst);

/**
 * How long each introspection list of this schema can be (the number of its types, the most fields
 * of any type, …), so that introspection is costed by what it can serve.
 */
function introspectionBounds(schema: GraphQLSchema): Record<string, number> {
  const types = Object.values(schema.getTypeMap());
  const most = (sizes: number[]) => Math.max(1, ...sizes);
  const fieldsOf = (type: GraphQLNamedType) => ('getFields' in type ? Object.values(type.getFields()) : []);
  const args = types.flatMap((type) => fieldsOf(type).map((field) => ('args' in field ? field.args.length : 0)));
  const directives = schema.getDirectives();
  return {
    '__Schema.types': types.length,
    '__Schema.directives': directives.length,
    '__Type.fields': most(types.map((type) => fieldsOf(type).length)),
    '__Type.inputFields': most(types.map((type) => fieldsOf(type).length)),
    '__Type.interfaces': most(types.map((type) => ('getInterfaces' in type ? type.getInterfaces().length : 0))),
    '__Type.possibleTypes': most(types.filter(isAbstractType).map((type) => schema.getPossibleTypes(type).length)),
    '__Type.enumValues': most(types.map((type) => ('getValues' in type ? type.getValues().length : 0))),
    '__Field.args': most(args),
    '__Directive.args': most(directives.map((directive) => directive.args.length)),
    '__Directive.locations': most(directives.map((directive) => directive.locations.length)),
  };
}

/** The limits as this schema applies them: list bounds, and introspection's budget (twice the full standard query). */
export class SchemaLimits {
  readonly listLengths: Record<string, number>;
  readonly introspectionCost: number;

  constructor(readonly schema: GraphQLSchema) {
    this.listLengths = { ...fixedListLengths, ...introspectionBounds(schema) };
    const standard = parse(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }));
    this.introspectionCost = 2 * new DocumentMeter(schema, standard, {}, this.listLengths).measure(undefined).introspectionCost;
  }

  measure(document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>): DocumentMeasure {
    return new DocumentMeter(this.schema, document, variables, this.listLengths).measure(operationName);
  }

  /** The first limit the measure goes over, as a QUERY_TOO_COMPLEX error naming it; undefined when within all. */
  excess(measure: DocumentMeasure): GraphQLError | undefined {
    if (measure.nodes > limits.nodes) return tooComplex(`The query selects ${measure.nodes} fields once its fragments are expanded; at most ${limits.nodes} are allowed.`);
    if (measure.aliases > limits.aliases) return tooComplex(`The query uses ${measure.aliases} aliases; at most ${limits.aliases} are allowed.`);
    if (measure.depth > limits.depth) return tooComplex(`The query is ${measure.depth} levels deep; at most ${limits.depth} are allowed.`);
    if (measure.cost > limits.cost) return tooComplex(costMessage(measure.cost));
    if (measure.introspectionCost > this.introspectionCost) {
      return tooComplex(`The introspection would cost ${measure.introspectionCost}; at most ${this.introspectionCost} is allowed (twice the standard introspection query).`);
    }
    return undefined;
  }
}

export const costMessage = (cost: number, what = 'The query') =>
  `${what} would cost ${Number.isFinite(cost) && cost < 1e15 ? Math.round(cost) : 'more than 10^15'}; at most ${limits.cost} is allowed (a list multiplies its selection by first, 20 when null or left out).`;
