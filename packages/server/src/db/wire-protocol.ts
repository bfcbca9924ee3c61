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
const sync = 0x53; // 'S'
const terminate = 0x58; // 'X'

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

/** What an answer says about its session: the transaction status of its last ReadyForQuery, and its notifications. */
export function readAnswer(answer: Buffer): { status: number | undefined; notifications: Notification[] } {
  let status: number | undefined;
  const notifications: Notification[] = [];
  for (let at = 0; at + 5 <= answer.length; at += 1 + answer.readInt32BE(at + 1)) {
    const type = answer[at];
    if (type === readyForQuery) status = answer[at + 5];
    else if (type === notificationResponse) {
      const channelAt = at + 9;
      const channelEnd = answer.indexOf(0, channelAt);
      const payloadEnd = answer.indexOf(0, channelEnd + 1);
      notifications.push({ channel: answer.toString('utf8', channelAt, channelEnd), payload: answer.toString('utf8', channelEnd + 1, payloadEnd) });
    }
  }
  return { status, notifications };
}

/** The SQL texts of the simple queries and parsed statements in `messages`, complete messages. */
export function* statementTexts(messages: Buffer): Generator<string> {
  for (let at = 0; at + 5 <= messages.length; at += 1 + messages.readInt32BE(at + 1)) {
    const type = messages[at];
    if (type === simpleQuery) yield messages.toString('utf8', at + 5, messages.indexOf(0, at + 5));
    else if (type === parse) {
      const textAt = messages.indexOf(0, at + 5) + 1;
      yield messages.toString('utf8', textAt, messages.indexOf(0, textAt));
    }
  }
}

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
