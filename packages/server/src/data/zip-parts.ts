import type { FileHandle } from 'node:fs/promises';
import { Readable, Transform, type TransformCallback, pipeline } from 'node:stream';
import yauzl from 'yauzl';
import { badFile } from './file-problems.js';
import type { Spool } from './upload-spool.js';

const mib = 1024 * 1024;
const readChunkBytes = 64 * 1024;

/**
 * What one uploaded zip may inflate to. Workbooks compress their sheets 7 to 17 times (measured on
 * 100k–200k-row sheets exceljs wrote, the most repetitive ones included), so 100 to 1 leaves room
 * while a bomb (deflate reaches 1000 to 1) is refused before it is inflated.
 */
export const zipLimits = {
  maxEntries: 10_000,
  maxRatio: 100,
  /** Small parts (a style sheet, one repeated string) may compress better than the ratio allows. */
  ratioFreeBytes: 16 * mib,
  /** All the parts read from one upload, together. */
  maxTotalBytes: 2048 * mib,
};

const byteSize = (bytes: number): string =>
  bytes >= 1024 * mib ? `${Number((bytes / 1024 / mib).toFixed(1))} GiB` : `${Number((bytes / mib).toFixed(1))} MiB`;

/** yauzl's reads through a FileHandle, whose close waits for the reads under way (a bare fd could be reused meanwhile). */
class FileHandleReader extends yauzl.RandomAccessReader {
  constructor(private readonly file: FileHandle) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const { file } = this;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let at = start; at < end; ) {
        const length = Math.min(readChunkBytes, end - at);
        const { bytesRead, buffer } = await file.read(Buffer.alloc(length), 0, length, at);
        if (bytesRead === 0) return;
        yield buffer.subarray(0, bytesRead);
        at += bytesRead;
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }
}

/** Fails as soon as a part inflates past the size the zip declared for it (the size its limits were checked against). */
class DeclaredSize extends Transform {
  private inflated = 0;

  constructor(
    private readonly name: string,
    private readonly declared: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.inflated += chunk.length;
    if (this.inflated > this.declared) {
      done(badFile(`The workbook's part ${this.name} inflates to more than the ${byteSize(this.declared)} its zip declares: the file is damaged, or built to exhaust the server.`));
      return;
    }
    done(null, chunk);
  }
}

/**
 * The parts of a zip spooled to disk, read in any order. yauzl reads the central directory, so an
 * .xlsx can be read strings first even when it stores a sheet before them, and every part's size
 * is known before a byte of it is inflated. (unzipper, which exceljs uses, follows the local headers
 * in file order and fflate has no random access to a file: either would have to keep a part
 * somewhere until the parts it needs are read.)
 */
export class ZipParts {
  private inflated = 0;
  private readonly opened: Readable[] = [];

  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly entries: Map<string, yauzl.Entry>,
  ) {}

  static async open(spool: Spool): Promise<ZipParts> {
    const zip = await yauzl.fromRandomAccessReaderPromise(new FileHandleReader(spool.file), spool.size, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: false,
    });
    if (zip.entryCount > zipLimits.maxEntries) {
      zip.close();
      throw badFile(`The zip holds ${zip.entryCount} files; a workbook may hold at most ${zipLimits.maxEntries.toLocaleString('en')}.`);
    }
    const entries = new Map<string, yauzl.Entry>();
    for await (const entry of zip.eachEntry()) if (!entries.has(entry.fileName)) entries.set(entry.fileName, entry);
    return new ZipParts(zip, entries);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** One part inflating, refused before it starts if it would pass `maxBytes`, the ratio or the total. */
  async read(name: string, maxBytes: number): Promise<Readable> {
    const entry = this.entries.get(name);
    if (!entry) throw badFile(`The workbook has no part ${name}.`);
    const size = entry.uncompressedSize;
    if (size > maxBytes) throw badFile(`The workbook's part ${name} inflates to ${byteSize(size)}; at most ${byteSize(maxBytes)} is accepted.`);
    if (size > zipLimits.ratioFreeBytes && size > entry.compressedSize * zipLimits.maxRatio) {
      const ratio = Math.round(size / Math.max(entry.compressedSize, 1));
      throw badFile(`The workbook's part ${name} inflates ${ratio} times its compressed size; at most ${zipLimits.maxRatio} times is accepted.`);
    }
    if (this.inflated + size > zipLimits.maxTotalBytes) {
      throw badFile(`The workbook's parts inflate to more than ${byteSize(zipLimits.maxTotalBytes)} together; at most that is accepted.`);
    }
    this.inflated += size;
    const inflating = await this.zip.openReadStreamPromise(entry);
    const part = pipeline(inflating, new DeclaredSize(name, size), () => undefined);
    this.opened.push(part);
    return part;
  }

  /** A part as UTF-8 text (characters split across chunks are decoded whole). */
  async text(name: string, maxBytes: number): Promise<Readable> {
    return (await this.read(name, maxBytes)).setEncoding('utf8');
  }

  /** Stops every part still inflating; the caller then closes the spool file. */
  close(): void {
    for (const part of this.opened) part.destroy();
    this.zip.close();
  }
}
