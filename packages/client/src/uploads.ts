/** What `datasets.upload` accepts: the file's text, a `Blob`/`File`, a web `ReadableStream`, or a Node.js stream. */
export type UploadSource = string | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

export interface UploadBody {
  body: BodyInit;
  contentType: string | undefined;
  /** A stream can be read only once: such an upload is not retried. */
  replayable: boolean;
}

const encoder = new TextEncoder();

/** A Node.js stream (any async iterable of chunks) as the web stream that fetch sends. */
function webStreamOf(source: AsyncIterable<Uint8Array | string>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

export function uploadBodyOf(source: UploadSource, contentType: string | undefined): UploadBody {
  if (typeof source === 'string') return { body: source, contentType: contentType ?? 'text/csv', replayable: true };
  if (source instanceof Blob) return { body: source, contentType: contentType ?? (source.type || 'text/csv'), replayable: true };
  const stream = source instanceof ReadableStream ? source : webStreamOf(source);
  return { body: stream, contentType: contentType ?? 'text/csv', replayable: false };
}
