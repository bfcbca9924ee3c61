import type { TSchema } from '@sinclair/typebox';
import { invalid } from '../platform/errors.js';
import { cursorOf, type CursorScope, type PageQuery } from '../platform/pagination.js';
import { validateInput } from '../platform/validation.js';

export interface ListArgs {
  first?: number | null;
  after?: string | null;
}

export const maxFirst = 100;

const itemId = /^[a-z]+_[0-9a-z]{26}$/;

/**
 * `first` and `after` as the REST page query. The spec's list types are plain lists (no
 * connection type to carry a cursor), so `after` also takes the id of the last item read, turned
 * into the cursor REST would have handed this organization after that item.
 */
export function pageOf(args: ListArgs, scope: CursorScope): PageQuery {
  const first = args.first ?? 20;
  if (!Number.isInteger(first) || first < 1 || first > maxFirst) throw invalid('first', `must be between 1 and ${maxFirst}`);
  const after = args.after ?? undefined;
  if (after === undefined) return { limit: first };
  return { limit: first, cursor: itemId.test(after) ? cursorOf(after, scope) : after };
}

/** GraphQL enums are the REST values in uppercase. */
export const lower = <T extends string>(value: string): T => value.toLowerCase() as T;
export const lowerOrUndefined = <T extends string>(value: string | null | undefined): T | undefined =>
  value === null || value === undefined ? undefined : lower<T>(value);

/**
 * A GraphQL input object as the REST body it stands for, checked against the route's own schema,
 * so both APIs refuse the same input with the same per-field details. Fields left out stay out;
 * `enumFields` are lowercased.
 */
export function asRestBody<T>(schema: TSchema, input: Record<string, unknown>, enumFields: readonly string[] = []): T {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    body[name] = enumFields.includes(name) && typeof value === 'string' ? lower(value) : value;
  }
  return validateInput<T>(schema, body, 'input');
}
