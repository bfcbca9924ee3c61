import { constants, crc32, deflateRawSync } from 'node:zlib';

/** One stored file of a zip: its deflated bytes and the size the zip declares for it once inflated. */
export interface ZipPart {
  name: string;
  deflated: Buffer;
  declaredSize: number;
  crc: number;
}

export const deflatedPart = (name: string, content: string): ZipPart => {
  const bytes = Buffer.from(content, 'utf8');
  return { name, deflated: deflateRawSync(bytes), declaredSize: bytes.length, crc: crc32(bytes) };
};

/**
 * `head`, then `unit` repeated `times` times, then `tail`, deflated without inflating it here: each
 * piece is deflated once into byte-aligned blocks (a sync flush) and the unit's blocks are repeated,
 * so a part that inflates to gigabytes costs a few megabytes and no time. Its CRC is left 0 (no
 * reader here checks it before the limits do).
 */
export function repeatedPart(name: string, pieces: { head: string; unit: Buffer; times: number; tail: string }, declaredSize?: number): ZipPart {
  const flushed = (bytes: Buffer) => deflateRawSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
  const head = Buffer.from(pieces.head, 'utf8');
  const tail = Buffer.from(pieces.tail, 'utf8');
  const unit = flushed(pieces.unit);
  const deflated = Buffer.concat([flushed(head), ...Array<Buffer>(pieces.times).fill(unit), deflateRawSync(tail)]);
  const inflated = head.length + pieces.unit.length * pieces.times + tail.length;
  return { name, deflated, declaredSize: declaredSize ?? inflated, crc: 0 };
}

/**
 * A local or central file header: the fields both share (version needed, method deflate, a date,
 * CRC, sizes, name length) start at `at`, after the signature (and, centrally, the version made by).
 */
function fileHeader(signature: number, length: number, at: number, part: ZipPart, nameLength: number): Buffer {
  const header = Buffer.alloc(length);
  header.writeUInt32LE(signature, 0);
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(8, at + 4);
  header.writeUInt16LE(0x21, at + 8);
  header.writeUInt32LE(part.crc, at + 10);
  header.writeUInt32LE(part.deflated.length, at + 14);
  header.writeUInt32LE(part.declaredSize, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
  return header;
}

/** A zip holding the parts in the order given. (Zip libraries deflate what they are given: none stores deflated bytes under a size they did not measure, as a bomb does.) */
export function zipOf(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const local = fileHeader(0x04034b50, 30, 4, part, name.length);
    const central = fileHeader(0x02014b50, 46, 6, part, name.length);
    central.writeUInt16LE(20, 4);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, part.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + part.deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const spreadsheetNs = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const relationshipNs = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The parts every workbook needs around its sheets and shared strings, for sheets named `names` (sheet1.xml, sheet2.xml …). */
export function workbookParts(names: string[]): ZipPart[] {
  const sheets = names.map((name, index) => `<sheet name="${name}" sheetId="${index + 1}" r:id="rId${index + 1}"/>`).join('');
  const rels = names
    .map((_, index) => `<Relationship Id="rId${index + 1}" Type="${relationshipNs}/worksheet" Target="worksheets/sheet${index + 1}.xml"/>`)
    .join('');
  return [
    deflatedPart('xl/workbook.xml', `<?xml version="1.0"?><workbook xmlns="${spreadsheetNs}" xmlns:r="${relationshipNs}"><sheets>${sheets}</sheets></workbook>`),
    deflatedPart(
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}` +
        `<Relationship Id="rIdS" Type="${relationshipNs}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
  ];
}

export const sheetHead = `<?xml version="1.0"?><worksheet xmlns="${spreadsheetNs}"><sheetData>`;
export const sheetTail = '</sheetData></worksheet>';
export const sharedStringsHead = `<?xml version="1.0"?><sst xmlns="${spreadsheetNs}">`;
