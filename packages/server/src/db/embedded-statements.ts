import { closeStatements, namedBind, namedParse, oneStatement, type OneStatement, parseComplete, parseCompleteType } from './wire-protocol.js';

/** Statements kept prepared; past this many, the least recently used is closed. */
const keptStatements = 200;
/**
 * Longer statements are batches whose text grows with their rows (a VALUES list per row): each
 * size is seen rarely, and keeping them would only push out the statements that repeat.
 */
const longestKeptStatement = 8192;

/** Runs protocol messages in PGlite, `prefix` placed before its answer (a message the client expects and PGlite was not asked for). */
export type RunMessages<Ran extends { answer: Buffer }> = (messages: Buffer, prefix?: Buffer) => Ran;

/**
 * pg sends each statement with parameters unnamed, so PGlite would parse and plan it every time,
 * and planning reads every table's and index's size from its file (an fstat each, through
 * Emscripten's file system): the alert list took 130 µs unnamed and 40 µs prepared, in a loop on
 * PGlite's files. This keeps such statements prepared under names of the thread's own, shared by
 * every connection of the one session, and rewrites a repeat's Parse and Bind to use the prepared
 * statement, answering the Parse itself.
 * PostgreSQL then plans it as it plans any prepared statement (a generic plan once it costs no
 * more than the custom ones).
 */
export class PreparedStatements {
  /** Name of each kept statement by its OneStatement key, least recently used first. */
  private readonly names = new Map<string, string>();
  /** Kept statements let go, to close once the session is idle. */
  private readonly released: string[] = [];
  private made = 0;
  private changedInTransaction = false;

  /** PGlite's answer to `messages`, through a prepared statement when they are one statement with parameters. */
  answer<Ran extends { answer: Buffer }>(messages: Buffer, run: RunMessages<Ran>): Ran {
    const statement = messages.length <= longestKeptStatement ? oneStatement(messages) : undefined;
    if (!statement) return run(messages);
    const name = this.names.get(statement.key);
    if (name === undefined) return this.prepare(statement, run);
    this.names.delete(statement.key);
    this.names.set(statement.key, name);
    return run(Buffer.concat([namedBind(name, statement), statement.rest]), parseComplete);
  }

  /**
   * After each answer: lets every kept statement go when a table or view changed, since a plan made
   * before may no longer fit it ("cached plan must not change result type"), and again when the
   * transaction that changed it ends, since a rollback undoes the change that statements prepared
   * meanwhile fit. PGlite has one session, so every change of its schema passes through here.
   */
  answered(changedSchema: boolean, inTransaction: boolean): void {
    if (!changedSchema && (inTransaction || !this.changedInTransaction)) return;
    this.changedInTransaction = changedSchema && inTransaction;
    this.released.push(...this.names.values());
    this.names.clear();
  }

  /** Close messages for the statements let go, to run while the session is idle; undefined when none. */
  takeReleased(): Buffer | undefined {
    if (this.released.length === 0) return undefined;
    return closeStatements(this.released.splice(0));
  }

  private prepare<Ran extends { answer: Buffer }>(statement: OneStatement, run: RunMessages<Ran>): Ran {
    const name = `vigil_embedded_${++this.made}`;
    const ran = run(Buffer.concat([namedParse(name, statement), namedBind(name, statement), statement.rest]));
    if (ran.answer[0] !== parseCompleteType) return ran;
    this.names.set(statement.key, name);
    if (this.names.size > keptStatements) {
      const [oldestKey, oldestName] = this.names.entries().next().value as [string, string];
      this.names.delete(oldestKey);
      this.released.push(oldestName);
    }
    return ran;
  }
}
