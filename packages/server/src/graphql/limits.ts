import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  GraphQLError,
  type GraphQLSchema,
  isListType,
  Kind,
  type SelectionSetNode,
  visit,
} from 'graphql';
import { getComplexity } from 'graphql-query-complexity';

/** DESIGN §3.7. Checked before anything runs; the standard introspection query passes. */
export const limits = {
  depth: 10,
  aliases: 30,
  cost: 5_000,
  /** Characters of one query document. */
  querySize: 20_000,
  /** Operations in one batched HTTP request. */
  batch: 10,
};

export const tooComplex = (message: string) => new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX' } });

const isIntrospection = (name: string) => name.startsWith('__');

/** Nesting of selections, fragments expanded; introspection fields do not count (their types nest deeply by design). */
function depthOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, expanding: Set<string>): number {
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    let depth = 0;
    if (selection.kind === Kind.FIELD) {
      if (isIntrospection(selection.name.value)) continue;
      depth = selection.selectionSet ? 1 + depthOf(selection.selectionSet, fragments, expanding) : 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      depth = depthOf(selection.selectionSet, fragments, expanding);
    } else {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || expanding.has(fragment.name.value)) continue;
      expanding.add(fragment.name.value);
      depth = depthOf(fragment.selectionSet, fragments, expanding);
      expanding.delete(fragment.name.value);
    }
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/**
 * A list field costs its selection times its `first` (20 when omitted); every other field costs
 * one plus its selection. Introspection costs nothing.
 */
function costOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>) {
  return getComplexity({
    schema,
    query: document,
    operationName,
    variables,
    estimators: [
      ({ type, field, args, childComplexity }) => {
        if (isIntrospection(type.name) || isIntrospection(getNamedType(field.type).name)) return 0;
        const multiplier = isListType(getNullableType(field.type)) && typeof args.first === 'number' ? args.first : 1;
        return multiplier * (1 + childComplexity);
      },
    ],
  });
}

/** The first limit the document goes over, as a message; undefined when it is within all. */
function firstExcess(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): string | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let aliases = 0;
  visit(document, {
    FragmentDefinition: (node) => void fragments.set(node.name.value, node),
    Field: (node) => void (node.alias && aliases++),
  });
  if (aliases > limits.aliases) return `The query uses ${aliases} aliases; at most ${limits.aliases} are allowed.`;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const depth = depthOf(definition.selectionSet, fragments, new Set());
    if (depth > limits.depth) return `The query is ${depth} levels deep; at most ${limits.depth} are allowed.`;
    const cost = costOf(schema, document, definition.name?.value, variables);
    if (cost > limits.cost) return `The query would cost ${cost}; at most ${limits.cost} is allowed (a list multiplies its selection by first).`;
  }
  return undefined;
}

/**
 * Verdicts on documents sent without variables, which depend on nothing else: mercurius hands
 * the same parsed document back for the same query text (its LRU cache), so a client repeating a
 * query pays for the cost walk once.
 */
const verdictWithoutVariables = new WeakMap<DocumentNode, string | undefined>();

/** The first limit the document goes over, as a QUERY_TOO_COMPLEX error; undefined when it is within all. */
export function overLimit(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}): GraphQLError | undefined {
  let excess: string | undefined;
  if (Object.keys(variables).length > 0) excess = firstExcess(schema, document, variables);
  else if (verdictWithoutVariables.has(document)) excess = verdictWithoutVariables.get(document);
  else verdictWithoutVariables.set(document, (excess = firstExcess(schema, document, variables)));
  return excess === undefined ? undefined : tooComplex(excess);
}
