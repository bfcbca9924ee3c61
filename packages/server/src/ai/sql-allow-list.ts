/**
 * What the model's SQL may use beyond plain columns and operators. Everything not listed is
 * refused, so nothing here can read files, reach the network, sleep, change settings, touch
 * large objects or the catalogs, or make a value many times larger than what it reads. Left out
 * on purpose because they do: repeat, lpad/rpad, format (`%500000000s`), generate_series;
 * replace and regexp_replace (each nesting multiplies the text); quote_literal, to_json and the
 * json builders, and every function that makes an array (string_to_array, regexp_match,
 * array_append, …), whose output escapes quotes, so nesting them doubles the text each time; and
 * the aggregates that concatenate rows (string_agg, array_agg, json_agg, …), as large as the rows
 * they are given. Left out too: translate, whose time is its text's length times its list's (a
 * 15 000-character list over 100 000 names: two minutes). Joining text (`||`, concat) is allowed,
 * bounded by the guard (sql-guard.ts).
 */
export const allowedFunctions: ReadonlySet<string> = new Set([
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
  'bool_and', 'bool_or', 'every',
  'percentile_cont', 'percentile_disc', 'mode', 'corr', 'covar_pop', 'covar_samp',
  'regr_slope', 'regr_intercept', 'regr_r2', 'regr_count', 'regr_avgx', 'regr_avgy',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value',
  // numbers
  'abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sqrt', 'cbrt', 'power', 'pow', 'exp', 'ln', 'log', 'log10', 'mod',
  'sign', 'div', 'pi', 'width_bucket', 'to_number', 'scale',
  // text
  'lower', 'upper', 'initcap', 'length', 'char_length', 'character_length', 'octet_length', 'substr', 'substring', 'left',
  'right', 'btrim', 'ltrim', 'rtrim', 'split_part', 'concat', 'concat_ws', 'position', 'strpos', 'starts_with',
  'reverse', 'regexp_like', 'regexp_count', 'like_escape', 'similar_to_escape', 'overlay', 'to_char', 'md5',
  // dates and times
  'now', 'date_trunc', 'date_part', 'extract', 'date_bin', 'age', 'make_date', 'make_time', 'make_timestamp',
  'make_timestamptz', 'make_interval', 'justify_days', 'justify_hours', 'justify_interval', 'isfinite', 'to_date',
  'to_timestamp', 'timezone', 'statement_timestamp', 'transaction_timestamp', 'overlaps', 'date',
  // reading json and arrays
  'json_extract_path_text', 'jsonb_extract_path_text', 'json_array_length', 'jsonb_array_length', 'json_typeof',
  'jsonb_typeof', 'array_length', 'array_position', 'cardinality', 'array_upper', 'array_lower', 'unnest',
  // conditionals that parse as calls
  'num_nulls', 'num_nonnulls',
]);

/**
 * Functions (and the `^` operator) that, given a numeric, compute at its precision: ln(round(x,
 * 1000)) takes milliseconds a row, power(x, 100000) builds a 100 000-digit number. The guard
 * has them compute in double precision: one argument at least must be of that type.
 */
export const floatOnlyFunctions: ReadonlySet<string> = new Set(['exp', 'ln', 'log', 'log10', 'sqrt', 'cbrt', 'power', 'pow']);

/** The types a cast to double precision may name, as the parser spells them. */
export const floatTypes: ReadonlySet<string> = new Set(['float8', 'float4', 'double precision', 'real', 'float']);

/** Functions that join several texts into one: the guard bounds how many values they join. */
export const joiningFunctions: ReadonlySet<string> = new Set(['concat', 'concat_ws', 'overlay']);

/** Types a cast may name; a cast to regclass and friends would be a catalog lookup. */
export const allowedTypes: ReadonlySet<string> = new Set([
  'int2', 'int4', 'int8', 'smallint', 'integer', 'int', 'bigint', 'numeric', 'decimal', 'float4', 'float8', 'real',
  'double precision', 'text', 'varchar', 'bpchar', 'char', 'character', 'character varying', 'bool', 'boolean', 'date',
  'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'json', 'jsonb', 'uuid',
]);

/** CURRENT_DATE and its kin; CURRENT_USER and the other session-information values are left out. */
export const allowedValueFunctions: ReadonlySet<string> = new Set([
  'SVFOP_CURRENT_DATE', 'SVFOP_CURRENT_TIME', 'SVFOP_CURRENT_TIME_N', 'SVFOP_CURRENT_TIMESTAMP', 'SVFOP_CURRENT_TIMESTAMP_N',
  'SVFOP_LOCALTIME', 'SVFOP_LOCALTIME_N', 'SVFOP_LOCALTIMESTAMP', 'SVFOP_LOCALTIMESTAMP_N',
]);

/**
 * Parse-tree nodes a read-only question may contain. Anything else (ParamRef, RangeFunction,
 * XmlExpr, RowExpr — whose text form escapes quotes, so nesting doubles it — …) is refused.
 */
export const allowedNodes: ReadonlySet<string> = new Set([
  'SelectStmt', 'ResTarget', 'ColumnRef', 'A_Star', 'String', 'Integer', 'Float', 'Boolean', 'A_Const', 'A_Expr',
  'BoolExpr', 'FuncCall', 'TypeCast', 'RangeVar', 'JoinExpr', 'RangeSubselect', 'SortBy', 'CommonTableExpr',
  'NullTest', 'BooleanTest', 'CaseExpr', 'CaseWhen', 'CoalesceExpr', 'MinMaxExpr', 'SubLink', 'WindowDef',
  'GroupingSet', 'GroupingFunc', 'A_ArrayExpr', 'A_Indirection', 'A_Indices', 'SQLValueFunction', 'List',
]);
