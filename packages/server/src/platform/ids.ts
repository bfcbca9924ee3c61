import { monotonicFactory } from 'ulid';

export const idPrefixes = {
  organization: 'org',
  project: 'proj',
  alert: 'alrt',
  user: 'usr',
  apiKey: 'key',
  webhook: 'whk',
  delivery: 'dlv',
  event: 'evt',
  connection: 'conn',
  query: 'qry',
  export: 'exp',
  dataset: 'ds',
  dashboard: 'dash',
  request: 'req',
} as const;

export type IdKind = keyof typeof idPrefixes;

const nextUlid = monotonicFactory();

/**
 * A prefix and a lowercase ULID: sortable by creation time (to the millisecond, monotonic within
 * one process), so ordering by id is ordering by age, which keeps cursor paging stable.
 */
export function newId(kind: IdKind, at: number = Date.now()): string {
  return `${idPrefixes[kind]}_${nextUlid(at).toLowerCase()}`;
}

export function hasPrefix(kind: IdKind, id: string): boolean {
  return new RegExp(`^${idPrefixes[kind]}_[0-9a-hjkmnp-tv-z]{26}$`).test(id);
}
