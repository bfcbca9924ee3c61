import path from 'node:path';
import { badFile } from './file-problems.js';
import { attribute, readXml } from './xml-part.js';

/** What xl/workbook.xml and its relationships say: the worksheets in tab order and where the other parts are. */
export interface WorkbookLayout {
  sheets: { name: string; part: string }[];
  sharedStrings: string;
  styles: string;
  /** Dates count from 1904 instead of 1900 (old Mac workbooks). */
  date1904: boolean;
}

/** A relationship's target as a zip path: relative to xl/, or absolute from the zip's root. */
const partPath = (target: string) => (target.startsWith('/') ? target.slice(1) : path.posix.join('xl', target));

export async function readWorkbookLayout(relationships: AsyncIterable<string>, workbook: AsyncIterable<string>): Promise<WorkbookLayout> {
  const targets = new Map<string, { type: string; part: string }>();
  await readXml(relationships, {
    open(name, attributes) {
      const id = attribute(attributes, 'Id');
      const target = attribute(attributes, 'Target');
      if (name === 'Relationship' && id && target) targets.set(id, { type: attribute(attributes, 'Type') ?? '', part: partPath(target) });
    },
  });
  const layout: WorkbookLayout = { sheets: [], sharedStrings: 'xl/sharedStrings.xml', styles: 'xl/styles.xml', date1904: false };
  for (const { type, part } of targets.values()) {
    if (type.endsWith('/sharedStrings')) layout.sharedStrings = part;
    if (type.endsWith('/styles')) layout.styles = part;
  }
  await readXml(workbook, {
    open(name, attributes) {
      if (name === 'workbookPr') layout.date1904 = ['1', 'true'].includes(attribute(attributes, 'date1904') ?? '');
      if (name !== 'sheet') return;
      const target = targets.get(attribute(attributes, 'id') ?? '');
      // Chart sheets and macro sheets hold no table.
      if (target?.type.endsWith('/worksheet')) layout.sheets.push({ name: attribute(attributes, 'name') ?? '', part: target.part });
    },
  });
  return layout;
}

/** Number formats 14–22, 27–36, 45–47 and 50–58 are Excel's built-in date and time formats. */
const builtInDateFormat = (id: number) => (id >= 14 && id <= 22) || (id >= 27 && id <= 36) || (id >= 45 && id <= 47) || (id >= 50 && id <= 58);

/** A custom format shows a date when it has date or time letters outside quoted text, [brackets] and escapes (\x, _x, *x). */
const customDateFormat = (code: string) => /[ymdhs]/i.test(code.replace(/\[[^\]]*]|"[^"]*"|[\\_*]./g, ''));

/** Which cell styles (xl/styles.xml's cellXfs, by index) show their number as a date. */
export async function readDateStyles(styles: AsyncIterable<string>): Promise<boolean[]> {
  const customFormats = new Map<number, string>();
  const dateStyles: boolean[] = [];
  let inCellStyles = false;
  await readXml(styles, {
    open(name, attributes) {
      const formatId = Number(attribute(attributes, 'numFmtId'));
      if (name === 'numFmt') customFormats.set(formatId, attribute(attributes, 'formatCode') ?? '');
      else if (name === 'cellXfs') inCellStyles = true;
      else if (name === 'xf' && inCellStyles) {
        const custom = customFormats.get(formatId);
        dateStyles.push(custom === undefined ? builtInDateFormat(formatId) : customDateFormat(custom));
      }
    },
    close(name) {
      if (name === 'cellXfs') inCellStyles = false;
    },
  });
  return dateStyles;
}

/** The plain text of a rich-text element (a shared string's <si>, a cell's <is>): its <t> runs, without phonetic guides (<rPh>). */
export class RunText {
  text = '';
  private inRun = false;
  private inPhonetic = false;

  open(name: string): void {
    if (name === 't') this.inRun = true;
    else if (name === 'rPh') this.inPhonetic = true;
  }

  close(name: string): void {
    if (name === 't') this.inRun = false;
    else if (name === 'rPh') this.inPhonetic = false;
  }

  add(text: string): void {
    if (this.inRun && !this.inPhonetic) this.text += text;
  }
}

/** The shared strings table is held in memory while the sheet is read: besides its part's size, its count is bounded. */
export const maxSharedStrings = 4_000_000;

export async function readSharedStrings(part: AsyncIterable<string>): Promise<string[]> {
  const strings: string[] = [];
  let item: RunText | undefined;
  await readXml(part, {
    open(name) {
      if (name === 'si') {
        if (strings.length === maxSharedStrings) {
          throw badFile(`The workbook has more than ${maxSharedStrings.toLocaleString('en')} shared strings; at most that many are accepted.`);
        }
        item = new RunText();
      } else item?.open(name);
    },
    text(text) {
      item?.add(text);
    },
    close(name) {
      if (name === 'si' && item) {
        strings.push(item.text);
        item = undefined;
      } else item?.close(name);
    },
  });
  return strings;
}
