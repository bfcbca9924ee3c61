import { ApiError } from '../platform/errors.js';

/** A file that cannot become a dataset: 422 naming the line or cell at fault. */
export const badFile = (message: string): ApiError => new ApiError('VALIDATION_ERROR', message, [{ field: 'file', message }]);

export const tooLarge = (maxBytes: number): ApiError =>
  new ApiError('PAYLOAD_TOO_LARGE', `The file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MiB this server accepts (VIGIL_MAX_UPLOAD_MB).`);

/** Passes the bytes through, failing with 413 as soon as more than `maxBytes` have come. */
export async function* limitBytes(source: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of source) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
  }
}

/**
 * The first bytes (at least `size` unless the source is shorter), then the whole source again:
 * lets a reader sniff the format without buffering more than a chunk or two.
 */
export async function peek(source: AsyncIterable<Buffer>, size = 8): Promise<{ head: Buffer; all: AsyncGenerator<Buffer> }> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < size && !done) {
    const next = await iterator.next();
    if (next.done) done = true;
    else {
      chunks.push(next.value);
      length += next.value.length;
    }
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* chunks;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: Buffer.concat(chunks), all: all() };
}
