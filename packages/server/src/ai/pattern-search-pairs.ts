/**
 * Searches for a pattern in a text take up to the text's length times the pattern's: strpos and
 * LIKE compare the pattern at every position, and a pattern that matches but for its last byte
 * makes each comparison run its whole length (a 75 KB pattern over a 150 KB text: 5–15 s on
 * PGlite, estimated by the planner like any call). This finds each such search in an expression
 * as EXPLAIN (VERBOSE) prints it, with its two operands.
 *
 * Hand-written because no parser reads EXPLAIN's expression text (it is deparsed SQL, not always
 * valid SQL); it relies on two habits of PostgreSQL's deparser: an operator and its operands are
 * always wrapped in one pair of parentheses, and literals are always quoted.
 */

/** Functions that search their second argument in their first (POSITION: its first in its second; either way a product). */
const searchFunction = /\b(?:strpos|split_part|regexp_like|regexp_count|btrim|ltrim|rtrim|POSITION)\(/g;

/** LIKE, ILIKE and regular expression matches as EXPLAIN prints them: `~~`, `~~*`, `~`, `~*` and their `!` negations. */
const searchOperator = /(?<![~!])!?~~?\*?(?!~)/g;

/** A literal as EXPLAIN prints it, quoted with its quotes doubled; its content is the first group. */
export const quotedLiteral = String.raw`'((?:[^']|'')*)'`;

/** Literals with their content replaced by as many `x` as it has bytes, so parentheses and commas in them don't count and their length is their bytes. */
function maskLiterals(text: string): string {
  return text.replace(new RegExp(quotedLiteral, 'g'), (_whole, content: string) => `'${'x'.repeat(Buffer.byteLength(content))}'`);
}

/** The index of the parenthesis that closes the group open at `from` (the character after its `(`). */
function closingParenthesis(text: string, from: number): number {
  let depth = 0;
  for (let index = from; index < text.length; index++) {
    if (text[index] === '(') depth++;
    else if (text[index] === ')' && depth-- === 0) return index;
  }
  return text.length;
}

/** The index of the parenthesis that opens the group `before` is in. */
function openingParenthesis(text: string, before: number): number {
  let depth = 0;
  for (let index = before - 1; index >= 0; index--) {
    if (text[index] === ')') depth++;
    else if (text[index] === '(' && depth-- === 0) return index;
  }
  return -1;
}

/** The arguments of a call, split at its own commas (or at POSITION's ` IN `). */
function argumentsOf(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '(') depth++;
    else if (text[index] === ')') depth--;
    else if (depth === 0 && (text[index] === ',' || text.startsWith(' IN ', index))) {
      found.push(text.slice(start, index));
      start = index + (text[index] === ',' ? 1 : 4);
    }
  }
  found.push(text.slice(start));
  return found;
}

/** How `pairsOf` is told of one search: its two operands (with their literals masked), and whether the pattern is a regular expression. */
export type SearchPairs = (searched: string, pattern: string, regex: boolean) => number;

/** The pairs of bytes the pattern searches in `expression` compare at most: the sum of what `pairsOf` makes of each. */
export function patternSearchPairs(expression: string, pairsOf: SearchPairs): number {
  const text = maskLiterals(expression);
  let pairs = 0;
  for (const call of text.matchAll(searchFunction)) {
    const open = call.index + call[0].length;
    const [searched, pattern] = argumentsOf(text.slice(open, closingParenthesis(text, open)));
    if (pattern !== undefined) pairs += pairsOf(searched, pattern, call[0].startsWith('regexp_'));
  }
  for (const operator of text.matchAll(searchOperator)) {
    const open = openingParenthesis(text, operator.index);
    const after = operator.index + operator[0].length;
    pairs += pairsOf(text.slice(open + 1, operator.index), text.slice(after, closingParenthesis(text, after)), !operator[0].includes('~~'));
  }
  return pairs;
}
