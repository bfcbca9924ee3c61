/**
 * The few facts about PostgreSQL's wire protocol (version 3) that the embedded database's thread
 * needs to share one PGlite session between many pg connections: where a client's messages end,
 * whether an answer closed the transaction, and which notifications it carries. pg and PGlite
 * speak the protocol themselves; nothing here builds or parses rows.
 */

/** Message types, as the byte that opens each message after the startup packet. */
const readyForQuery = 0x5a; // 'Z'
const notificationResponse = 0x41; // 'A'
const simpleQuery = 0x51; // 'Q'
const parse = 0x50; // 'P'
const bind = 0x42; // 'B'
const describe = 0x44; // 'D'
const execute = 0x45; // 'E'
const close = 0x43; // 'C', from a client
const commandComplete = 0x43; // 'C', from the server
const sync = 0x53; // 'S'
const terminate = 0x58; // 'X'
/** The answer to a Parse that succeeded. */
export const parseCompleteType = 0x31; // '1'

/** ReadyForQuery's status when no transaction is open: the session can be handed to another client. */
export const idle = 0x49; // 'I'

/** The complete messages at the start of `input` (after the startup packet), as a length in bytes: 0 when the first is still partial. */
export function completeLength(input: Buffer): number {
  let end = 0;
  while (end + 5 <= input.length) {
    const next = end + 1 + input.readInt32BE(end + 1);
    if (next > input.length) break;
    end = next;
  }
  return end;
}

export interface Notification {
  channel: string;
  payload: string;
}

/** A client's first message, protocol 3.0, as pg sends it: PGlite's answer to it is the same for every client. */
export function startupMessage(parameters: Record<string, string>): Buffer {
  const body = Buffer.from(`${Object.entries(parameters).map(([name, value]) => `${name}\0${value}\0`).join('')}\0`, 'utf8');
  const message = Buffer.alloc(8 + body.length);
  message.writeInt32BE(message.length, 0);
  message.writeInt32BE(0x00030000, 4);
  body.copy(message, 8);
  return message;
}

/** Calls `visit` with each complete message of `bytes`: its type, where its body starts and where it ends. */
function eachMessage(bytes: Buffer, visit: (type: number, bodyAt: number, end: number) => void): void {
  for (let at = 0; at + 5 <= bytes.length; ) {
    const end = at + 1 + bytes.readInt32BE(at + 1);
    visit(bytes[at]!, at + 5, end);
    at = end;
  }
}

/** The command tags of statements that change what a table or view is: a plan made before them may no longer fit. */
const schemaChanges = ['ALTER ', 'CREATE ', 'DROP '].map((tag) => Buffer.from(tag, 'latin1'));

/**
 * What an answer says about its session: the transaction status of its last ReadyForQuery, its
 * notifications, and whether a statement in it changed a table or view.
 */
export function readAnswer(answer: Buffer): { status: number | undefined; notifications: Notification[]; changedSchema: boolean } {
  let status: number | undefined;
  const notifications: Notification[] = [];
  let changedSchema = false;
  eachMessage(answer, (type, bodyAt, end) => {
    if (type === commandComplete) changedSchema ||= schemaChanges.some((tag) => end - bodyAt > tag.length && answer.compare(tag, 0, tag.length, bodyAt, bodyAt + tag.length) === 0);
    else if (type === readyForQuery) status = answer[bodyAt];
    else if (type === notificationResponse) {
      const channelAt = bodyAt + 4;
      const channelEnd = answer.indexOf(0, channelAt);
      const payloadEnd = answer.indexOf(0, channelEnd + 1);
      notifications.push({ channel: answer.toString('utf8', channelAt, channelEnd), payload: answer.toString('utf8', channelEnd + 1, payloadEnd) });
    }
  });
  return { status, notifications, changedSchema };
}

const lowerCaseBit = 0x20;
const blanks = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The texts in `messages` (simple queries and parsed statements) that open with `SET`, the only
 * ones the thread reads: a test of their first bytes, so that no other statement's text is decoded.
 */
export function setStatementTexts(messages: Buffer): string[] {
  const texts: string[] = [];
  const readIfSet = (textAt: number) => {
    let at = textAt;
    while (blanks.has(messages[at]!)) at++;
    if ((messages[at]! | lowerCaseBit) !== 0x73 || (messages[at + 1]! | lowerCaseBit) !== 0x65 || (messages[at + 2]! | lowerCaseBit) !== 0x74) return;
    texts.push(messages.toString('utf8', textAt, messages.indexOf(0, textAt)));
  };
  eachMessage(messages, (type, bodyAt) => {
    if (type === simpleQuery) readIfSet(bodyAt);
    else if (type === parse) readIfSet(messages.indexOf(0, bodyAt) + 1);
  });
  return texts;
}

/**
 * One statement with parameters, as pg sends it: Parse and Bind of the unnamed statement and portal,
 * Describe of the portal, Execute of all its rows, Sync. The pieces a named statement is made of.
 */
export interface OneStatement {
  /** The Parse's text and parameter types, as a string of its bytes: the same statement, the same key. */
  key: string;
  /** The Parse's body after its (empty) name. */
  parseRest: Buffer;
  /** The Bind's body after its (empty) portal and statement names. */
  bindRest: Buffer;
  /** Describe, Execute and Sync. */
  rest: Buffer;
}

/** `messages` as a OneStatement, or undefined when they are anything else. */
export function oneStatement(messages: Buffer): OneStatement | undefined {
  const types: number[] = [];
  const ends: number[] = [];
  eachMessage(messages, (type, _bodyAt, end) => {
    types.push(type);
    ends.push(end);
  });
  if (types.length !== 5 || types[0] !== parse || types[1] !== bind || types[2] !== describe || types[3] !== execute || types[4] !== sync) return undefined;
  const [parseEnd, bindEnd] = ends as [number, number];
  // A statement its client named is left as it is; and the Bind's fields below sit where they do only after empty names.
  const unnamed = messages[5] === 0 && messages[parseEnd + 5] === 0 && messages[parseEnd + 6] === 0;
  if (!unnamed) return undefined;
  const formatCount = messages.readInt16BE(parseEnd + 7);
  if (messages.readInt16BE(parseEnd + 9 + 2 * formatCount) === 0) return undefined;
  return {
    key: messages.toString('latin1', 6, parseEnd),
    parseRest: messages.subarray(6, parseEnd),
    bindRest: messages.subarray(parseEnd + 7, bindEnd),
    rest: messages.subarray(bindEnd),
  };
}

/** A message of `type` whose body is `name`, NUL-terminated, then `rest`. */
function namedMessage(type: number, prefix: Buffer, name: string, rest: Buffer): Buffer {
  const nameBytes = Buffer.from(`${name}\0`, 'latin1');
  const message = Buffer.allocUnsafe(5 + prefix.length + nameBytes.length + rest.length);
  message[0] = type;
  message.writeInt32BE(message.length - 1, 1);
  prefix.copy(message, 5);
  nameBytes.copy(message, 5 + prefix.length);
  rest.copy(message, 5 + prefix.length + nameBytes.length);
  return message;
}

const noBytes = Buffer.alloc(0);
/** The unnamed portal, as Bind names it before its statement. */
const unnamedPortal = Buffer.from([0]);
const ofStatement = Buffer.from('S', 'latin1');

/** Parse of `statement` under `name`. */
export function namedParse(name: string, statement: OneStatement): Buffer {
  return namedMessage(parse, noBytes, name, statement.parseRest);
}

/** Bind of `statement`'s values to the unnamed portal, from the prepared statement `name`. */
export function namedBind(name: string, statement: OneStatement): Buffer {
  return namedMessage(bind, unnamedPortal, name, statement.bindRest);
}

/** Close of each of these prepared statements, then one Sync. */
export function closeStatements(names: string[]): Buffer {
  return Buffer.concat([...names.map((name) => namedMessage(close, ofStatement, name, noBytes)), syncMessage]);
}

/** ParseComplete, the answer to a Parse that succeeded. */
export const parseComplete = Buffer.from([parseCompleteType, 0, 0, 0, 4]);

/** True when `messages` open with Terminate: the client is leaving (pg sends it alone, then closes). */
export function isTerminate(messages: Buffer): boolean {
  return messages[0] === terminate;
}

/** A simple query message: the embedded thread's own statements (LISTEN, the ROLLBACK of a client that left). */
export function simpleQueryMessage(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message[0] = simpleQuery;
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

/** Sync: ends an extended-protocol exchange a client left half-way, so that the next statement runs. */
export const syncMessage = Buffer.from([sync, 0, 0, 0, 4]);
