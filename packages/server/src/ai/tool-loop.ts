import { runSqlTool } from './prompt.js';
import type { ChatMessage, ChatProvider, ToolCall } from './provider.js';
import type { ResultRow, SqlOutcome } from './sql-runner.js';

/** Provider calls per question: the last one is asked for text, so a question always ends. */
export const maxRounds = 6;

/** A tool result larger than this is cut before it goes back to the model (the API still gets all rows). */
const maxToolResultChars = 16_000;

export interface LoopOutcome {
  answer: string;
  /** `incomplete`: the model used every round without giving an answer. */
  status: 'completed' | 'incomplete';
  tokens: number;
  model: string;
  /** The last statement that ran, and its rows: what the answer is most likely computed from. */
  sql: string | null;
  rows: ResultRow[] | null;
}

export type RunSql = (sql: string) => Promise<SqlOutcome>;

function toolResult(outcome: SqlOutcome): string {
  if (!outcome.ok) return JSON.stringify({ error: outcome.error });
  const result = { columns: outcome.columns, rowCount: outcome.rows.length, truncated: outcome.truncated, rows: outcome.rows };
  let text = JSON.stringify(result);
  for (let keep = outcome.rows.length; text.length > maxToolResultChars && keep > 0; keep = Math.floor(keep / 2)) {
    text = JSON.stringify({ ...result, rows: outcome.rows.slice(0, keep), note: `only the first ${keep} rows are shown` });
  }
  return text;
}

async function callTool(call: ToolCall, runSql: RunSql): Promise<SqlOutcome> {
  if (call.name !== runSqlTool.name) return { ok: false, error: `Unknown tool ${call.name}; the only tool is run_sql.` };
  let sql: unknown;
  try {
    sql = (JSON.parse(call.arguments) as { sql?: unknown }).sql;
  } catch {
    return { ok: false, error: 'The arguments are not valid JSON; send {"sql": "SELECT …"}.' };
  }
  if (typeof sql !== 'string' || sql.trim() === '') return { ok: false, error: 'Send {"sql": "SELECT …"} with a statement.' };
  return runSql(sql);
}

/**
 * The conversation: the model may call run_sql, sees each result or refusal, and answers. Tokens
 * are the sum over all rounds; the model is the one named by the round that answered.
 */
export async function answerQuestion(provider: ChatProvider, system: string, question: string, runSql: RunSql): Promise<LoopOutcome> {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: question },
  ];
  let tokens = 0;
  let last: Extract<SqlOutcome, { ok: true }> | undefined;
  for (let round = 1; ; round += 1) {
    const finalRound = round === maxRounds;
    const reply = await provider.complete({ messages, tools: [runSqlTool], toolChoice: finalRound ? 'none' : 'auto' });
    tokens += reply.tokens;
    const answer = reply.content?.trim() ?? '';
    if (reply.toolCalls.length === 0 || finalRound) {
      return {
        answer: answer || 'No answer could be computed: the model stopped without giving one.',
        status: answer ? 'completed' : 'incomplete',
        tokens,
        model: reply.model,
        sql: last?.statement ?? null,
        rows: last?.rows ?? null,
      };
    }
    messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    for (const call of reply.toolCalls) {
      const outcome = await callTool(call, runSql);
      if (outcome.ok) last = outcome;
      messages.push({ role: 'tool', toolCallId: call.id, content: toolResult(outcome) });
    }
  }
}
