/** Words that would need quoting in SQL: a column or table named so gets a trailing underscore. */
const reserved = new Set(
  (
    'all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create ' +
    'current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc ' +
    'distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral ' +
    'leading limit localtime localtimestamp not null offset on only or order placing primary references returning ' +
    'select session_user some symmetric table then to trailing true union unique user using variadic when where window with ' +
    // PostgreSQL's system columns: every table has them, so a column of the same name cannot be created.
    'tableoid xmin cmin xmax cmax ctid'
  ).split(' '),
);

/** PostgreSQL truncates identifiers at 63 bytes; leave room for a "_99" suffix and a "_pkey" index name. */
const maxLength = 50;

/** The text's letters and digits in a-z, 0-9 and _ (accents dropped); empty when it has none, as in 売上. */
const latinPart = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, maxLength)
    .replace(/_+$/, '');

/**
 * A lowercase SQL identifier made of a-z, 0-9 and _, never starting with a digit or an underscore
 * (names starting with "_" are kept for Vigil's own columns such as _row_id).
 */
export function toIdentifier(text: string, fallback: string): string {
  let identifier = latinPart(text);
  if (identifier === '') identifier = fallback;
  if (/^[0-9]/.test(identifier)) identifier = `${fallback}_${identifier}`.slice(0, maxLength);
  return reserved.has(identifier) ? `${identifier}_` : identifier;
}

/** The first of base, base_2, base_3 … that `taken` does not hold. */
export function firstFree(base: string, taken: (candidate: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base.slice(0, maxLength - String(n).length - 1)}_${n}`;
    if (!taken(candidate)) return candidate;
  }
}

/** One identifier per header cell, unique within the list; cells with no Latin letter or digit become column_N. */
export function columnIdentifiers(headers: string[]): string[] {
  const used = new Set<string>();
  return headers.map((header, index) => {
    const name = firstFree(toIdentifier(header, latinPart(header) === '' ? `column_${index + 1}` : 'column'), (c) => used.has(c));
    used.add(name);
    return name;
  });
}

/** A dataset name's table: "Sales 2024.csv" → sales_2024. */
export function tableIdentifier(datasetName: string): string {
  return toIdentifier(datasetName.replace(/\.(csv|tsv|txt|xlsx)$/i, ''), 'dataset');
}

export const quoteIdentifier = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;
