import { badFile } from './file-problems.js';
import type { TableRecord } from './table-record.js';
import { spoolUpload } from './upload-spool.js';
import { readSheetRecords } from './xlsx-sheet.js';
import { readDateStyles, readSharedStrings, readWorkbookLayout } from './xlsx-workbook-parts.js';
import { ZipParts, zipLimits } from './zip-parts.js';

const mib = 1024 * 1024;

/** What the workbook's small parts (workbook.xml, its relationships, styles.xml) may inflate to. */
const maxSmallPartBytes = 32 * mib;

/** The shared strings are held in memory while the sheet is read: their part is bounded (and their count, see readSharedStrings). */
const maxSharedStringsBytes = 256 * mib;

/**
 * The rows of one worksheet of an .xlsx workbook: the first sheet, or the one named `sheet`.
 * Wholly empty rows are skipped. The upload is spooled to a private file in `spoolDir` (a zip's
 * directory is at its end), then its parts are inflated under the limits of zip-parts.ts in the
 * order that needs nothing kept but the shared strings: relationships, workbook, strings, styles,
 * and last the sheet, parsed as it inflates. Nothing else is written to disk.
 */
export async function* readXlsxRecords(source: AsyncIterable<Buffer>, options: { sheet?: string; spoolDir: string }): AsyncGenerator<TableRecord[]> {
  const spool = await spoolUpload(source, options.spoolDir);
  let parts: ZipParts | undefined;
  try {
    parts = await ZipParts.open(spool);
    const layout = await readWorkbookLayout(await parts.text('xl/_rels/workbook.xml.rels', maxSmallPartBytes), await parts.text('xl/workbook.xml', maxSmallPartBytes));
    const chosen = options.sheet === undefined ? layout.sheets[0] : layout.sheets.find((candidate) => candidate.name === options.sheet);
    if (!chosen) throw badFile(options.sheet === undefined ? 'The workbook has no worksheet.' : `The workbook has no sheet named "${options.sheet}".`);
    const sharedStrings = parts.has(layout.sharedStrings) ? await readSharedStrings(await parts.text(layout.sharedStrings, maxSharedStringsBytes)) : [];
    const dateStyles = parts.has(layout.styles) ? await readDateStyles(await parts.text(layout.styles, maxSmallPartBytes)) : [];
    yield* readSheetRecords(await parts.text(chosen.part, zipLimits.maxTotalBytes), { sharedStrings, dateStyles, date1904: layout.date1904 });
  } catch (error) {
    if (error instanceof Error && error.name === 'ApiError') throw error;
    throw badFile('The file is not a readable Excel workbook (.xlsx).');
  } finally {
    parts?.close();
    await spool.file.close();
  }
}
