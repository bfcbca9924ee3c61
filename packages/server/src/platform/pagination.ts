import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { NullableString, refTo } from './route-schemas.js';
import { invalid } from './errors.js';

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100.' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The nextCursor of the previous page.' })),
});
export type PageQuery = Static<typeof PageQuery>;

export const ListMeta = Type.Object(
  {
    limit: Type.Integer({ description: 'The page size that was applied.' }),
    hasMore: Type.Boolean({ description: 'Whether another page follows.' }),
    nextCursor: NullableString({ description: 'Pass as cursor to read the next page; null on the last page.' }),
  },
  { $id: 'PageMeta' },
);

/** A named schema (one with an `$id`) as a reference, any other inline. */
const itemOf = <T extends TSchema>(item: T) => (item.$id ? refTo(item) : item);

export const listOf = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(itemOf(item)), meta: refTo(ListMeta) });
/** One item in `{data}`; `description` says when a route answers it, where a route has several successes. */
export const single = <T extends TSchema>(item: T, description?: string) => Type.Object({ data: itemOf(item) }, description ? { description } : {});

export interface Page<T> {
  data: T[];
  meta: { limit: number; hasMore: boolean; nextCursor: string | null };
}

/** What a store needs to read one page: newest first, strictly older than `beforeId`. */
export interface PageWindow {
  limit: number;
  beforeId: string | undefined;
  /** Whom the next cursor is made for. */
  scope: CursorScope;
}

export interface CursorScope {
  orgId: string;
  secretKey: string;
}

const seal = (id: string, { orgId, secretKey }: CursorScope): Buffer =>
  createHmac('sha256', secretKey).update(`cursor\n${orgId}\n${id}`).digest().subarray(0, 12);

/** The cursor that continues a list after the item `id`. */
export const cursorOf = (id: string, scope: CursorScope): string =>
  `${Buffer.from(id, 'utf8').toString('base64url')}.${seal(id, scope).toString('base64url')}`;

/**
 * Cursors are opaque to clients: the base64url of the last id on the page, sealed with an HMAC of
 * the organization and the id, so that a cursor this API did not hand to this organization (junk
 * appended, an id of another organization) is 422 rather than a page. Ids are time-sortable and
 * unique, so "older than this id" never skips or repeats an item while others are inserted.
 */
export function pageWindow(query: PageQuery, orgId: string, secretKey: string): PageWindow {
  const limit = query.limit ?? 20;
  const scope = { orgId, secretKey };
  if (query.cursor === undefined) return { limit, beforeId: undefined, scope };
  const [encodedId = '', mac = '', ...rest] = query.cursor.split('.');
  const beforeId = Buffer.from(encodedId, 'base64url').toString('utf8');
  const expected = seal(beforeId, scope);
  const presented = Buffer.from(mac, 'base64url');
  const canonical = rest.length === 0 && Buffer.from(beforeId, 'utf8').toString('base64url') === encodedId && presented.toString('base64url') === mac;
  const genuine = canonical && presented.length === expected.length && timingSafeEqual(presented, expected);
  if (!genuine || !/^[a-z]+_[0-9a-z]{26}$/.test(beforeId)) throw invalid('cursor', 'is not a cursor this API returned');
  return { limit, beforeId, scope };
}

/** `rows` is what the store read with LIMIT window.limit + 1. */
export function toPage<T extends { id: string }>(rows: T[], window: PageWindow): Page<T> {
  const hasMore = rows.length > window.limit;
  const data = hasMore ? rows.slice(0, window.limit) : rows;
  const last = data[data.length - 1];
  return {
    data,
    meta: {
      limit: window.limit,
      hasMore,
      nextCursor: hasMore && last ? cursorOf(last.id, window.scope) : null,
    },
  };
}
