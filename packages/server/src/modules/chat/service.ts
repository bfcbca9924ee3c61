import { OpenAiCompatibleProvider } from '../../ai/openai-provider.js';
import { NoTurnInTime } from '../../platform/concurrency-limit.js';
import { ProjectSqlPaused } from '../../ai/stopped-sql-cooldown.js';
import { describeProject } from '../../ai/project-data.js';
import { ProjectReaders } from '../../ai/project-reader.js';
import { systemPrompt } from '../../ai/prompt.js';
import { type ChatProvider, ProviderError } from '../../ai/provider.js';
import { defaultSqlLimits, runModelSql } from '../../ai/sql-runner.js';
import { answerQuestion } from '../../ai/tool-loop.js';
import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { ApiError, found, RetryLater } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { insertQuery } from '../history/store.js';
import { findProject } from '../projects/store.js';
import type { UsageService } from '../usage/service.js';
import type { AiResponse, AskQuestion } from './schema.js';

export interface Asker {
  orgId: string;
  apiKeyId: string | null;
  userId: string | null;
}

/** Seconds a question refused for want of a free connection is asked to wait: about one statement's time limit. */
const busyRetryAfterSeconds = 5;

export const notConfigured = () =>
  new ApiError('SERVICE_UNAVAILABLE', 'The AI component is not configured on this instance (set AI_BASE_URL and AI_MODEL).');

/** The model's text may hold U+0000, which PostgreSQL cannot store. */
const storable = (text: string): string => text.replaceAll('\u0000', '\uFFFD');

export class ChatService {
  private readonly provider: ChatProvider | undefined;
  readonly readers: ProjectReaders;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly usage: UsageService,
    provider: ChatProvider | undefined = ctx.config.ai && new OpenAiCompatibleProvider(ctx.config.ai),
  ) {
    this.provider = provider;
    this.readers = new ProjectReaders(ctx.db, ctx.config.projectSql, ctx.clock);
  }

  get configured(): boolean {
    return this.provider !== undefined;
  }

  /**
   * Answers from the project's own data. The question is stored, its event recorded and usage
   * counted only once the provider has answered: a provider failure leaves nothing behind.
   */
  async ask(asker: Asker, input: AskQuestion): Promise<AiResponse> {
    const { db, clock } = this.ctx;
    // The question and the project are checked first: a client learns what is wrong with its request wherever it is sent.
    const project = found(await findProject(db, asker.orgId, input.projectId), 'project');
    const provider = this.provider;
    if (!provider) throw notConfigured();
    await this.usage.assertAiAllowance(asker.orgId);
    const started = clock.now();
    const tables = await this.readers.perOrganization.run(asker.orgId, () => describeProject(db, this.readers, asker.orgId, project.id)).catch((error: unknown) => {
      // Nothing is spent yet: the client is asked to come back rather than the model asked to answer blind.
      if (error instanceof NoTurnInTime) throw new RetryLater('SERVICE_UNAVAILABLE', error.message, busyRetryAfterSeconds);
      if (error instanceof ProjectSqlPaused) throw new RetryLater('SERVICE_UNAVAILABLE', error.message, error.retryAfterSeconds);
      throw error;
    });
    const tableNames = new Set(tables.map((table) => table.name));
    let outcome;
    try {
      outcome = await answerQuestion(provider, systemPrompt(project.name, tables, started), input.message, (sql) =>
        this.readers.perOrganization.run(asker.orgId, () => runModelSql(this.readers, project.id, tableNames, sql, defaultSqlLimits)),
      );
    } catch (error) {
      if (error instanceof ProviderError) {
        throw new ApiError('AI_PROVIDER_ERROR', `The AI provider failed: ${error.message}`);
      }
      throw error;
    }
    const finished = clock.now();
    // Counted as soon as the provider has answered: what was spent counts even if storing fails.
    this.usage.meter.countQuestion(asker.orgId, finished, outcome.tokens);
    const record = await db.transaction(async (tx) => {
      const stored = await insertQuery(tx, asker.orgId, {
        id: newId('query', finished.getTime()),
        projectId: project.id,
        question: input.message,
        answer: storable(outcome.answer),
        sql: outcome.sql === null ? null : storable(outcome.sql),
        rows: outcome.rows,
        tokens: outcome.tokens,
        model: outcome.model,
        status: outcome.status,
        durationMs: finished.getTime() - started.getTime(),
        apiKeyId: asker.apiKeyId,
        userId: asker.userId,
        createdAt: finished,
      });
      const { rows: _rows, ...event } = stored;
      await recordEvent(tx, clock, asker.orgId, 'query.completed', event);
      return stored;
    });
    return {
      answer: record.answer,
      tokens: record.tokens,
      model: record.model,
      projectId: record.projectId,
      queryId: record.id,
      ...(outcome.sql !== null ? { sql: outcome.sql, rows: outcome.rows ?? [] } : {}),
    };
  }
}
