/**
 * Column names are written into SQL text, so they must come from code. Anything that is not a plain
 * lowercase identifier is refused, so a key that slipped in from a request can never become SQL.
 */
export function columnName(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a column name: ${JSON.stringify(name)}`);
  return name;
}
