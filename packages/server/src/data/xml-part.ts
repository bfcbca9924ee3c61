import { SaxesParser } from 'saxes';
import { maxRecordChars } from './csv-reader.js';
import { badFile } from './file-problems.js';

export type XmlAttributes = Record<string, string>;

/** What a reader of one XML part does with its tags and text; names come without their namespace prefix. */
export interface XmlHandlers {
  open?(name: string, attributes: XmlAttributes): void;
  text?(text: string): void;
  close?(name: string): void;
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** An attribute by its local name (`r:id` is found as `id`). */
export function attribute(attributes: XmlAttributes, name: string): string | undefined {
  if (name in attributes) return attributes[name];
  const prefixed = Object.keys(attributes).find((key) => localName(key) === name);
  return prefixed === undefined ? undefined : attributes[prefixed];
}

/** Characters since the last tag boundary (`<` or `>`), which is what saxes holds before it emits. */
function sinceMarkup(chunk: string, before: number): number {
  const boundary = Math.max(chunk.lastIndexOf('<'), chunk.lastIndexOf('>'));
  return boundary === -1 ? before + chunk.length : chunk.length - boundary - 1;
}

/**
 * Parses one XML part as it streams in, with saxes: the handlers run on each chunk's tags and text,
 * then the generator yields so that the caller can pass on what they collected. Nothing of the part
 * is kept beyond what saxes holds between two tags, and that is at most maxRecordChars.
 */
export async function* parseXml(part: AsyncIterable<string>, handlers: XmlHandlers): AsyncGenerator<void> {
  const parser = new SaxesParser();
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  if (handlers.open) {
    const open = handlers.open;
    parser.on('opentag', (tag) => open(localName(tag.name), tag.attributes));
  }
  if (handlers.text) {
    parser.on('text', handlers.text);
    parser.on('cdata', handlers.text);
  }
  if (handlers.close) {
    const close = handlers.close;
    parser.on('closetag', (tag) => close(localName(tag.name)));
  }
  let unmarked = 0;
  for await (const chunk of part) {
    unmarked = sinceMarkup(chunk, unmarked);
    if (unmarked > maxRecordChars) throw badFile(`The workbook has more than ${maxRecordChars / 1024 / 1024} MiB of text between two tags; a cell holds at most 32,767 characters.`);
    parser.write(chunk);
    if (failure) throw failure;
    yield;
  }
  parser.close();
  if (failure) throw failure;
}

/** Parses a whole (small) part for what the handlers collect. */
export async function readXml(part: AsyncIterable<string>, handlers: XmlHandlers): Promise<void> {
  for await (const _chunk of parseXml(part, handlers));
}
