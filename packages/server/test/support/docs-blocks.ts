import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes.js';

/*
 * The fenced code blocks of the pages a reader follows, and what the docs test does with each
 * (docs/architecture.md, "Docs that run"). A block is run by its language, or carries a marker on
 * the line before it: `<!-- not run: reason -->`, or `<!-- example: name -->` when a test of its
 * own runs it (that test reads it with docsExample).
 */

export type RunnableLanguage = 'sh' | 'js' | 'ts' | 'python';

const languages: Record<string, RunnableLanguage> = {
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  js: 'js',
  javascript: 'js',
  mjs: 'js',
  ts: 'ts',
  typescript: 'ts',
  python: 'python',
  py: 'python',
};

export interface DocsBlock {
  /** Repository-relative path of the page. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string, e.g. `ts` or `json`. */
  info: string;
  code: string;
  language: RunnableLanguage | undefined;
  notRun: string | undefined;
  example: string | undefined;
}

export interface DocsPage {
  page: string;
  text: string;
  blocks: DocsBlock[];
  /** Server settings the page's examples need (`<!-- docs-server: NAME=value … -->`), which its text must also tell the reader. */
  serverSettings: Record<string, string>;
}

/** Every page a reader follows: the README, each page of docs/ (new ones included), and the two clients' READMEs. */
export function docsPages(): string[] {
  const docs = readdirSync(path.join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs, 'packages/client/README.md', 'clients/python/README.md'];
}

const fence = /^(`{3,})([^\n`]*)\n([\s\S]*?)^\1[ \t]*$/gm;
/** A marker on the line right before a block's fence (one line: its reason or name never spans lines). */
const markerBefore = /<!--[ \t]*(not run|example):[ \t]*((?:(?!-->)[^\n])*?)[ \t]*-->\s*$/;

export function readDocsPage(page: string): DocsPage {
  const text = readFileSync(path.join(repoRoot, page), 'utf8');
  const blocks = [...text.matchAll(fence)].map((match): DocsBlock => {
    const before = text.slice(0, match.index);
    const marker = markerBefore.exec(before.replace(/\n\s*$/, '\n'));
    const info = match[2].trim();
    return {
      page,
      line: before.split('\n').length,
      info,
      code: match[3],
      language: languages[info],
      notRun: marker?.[1] === 'not run' ? marker[2] : undefined,
      example: marker?.[1] === 'example' ? marker[2] : undefined,
    };
  });
  const settings = /^<!--[ \t]*docs-server:[ \t]*([^>\n]*?)[ \t]*-->/m.exec(text)?.[1] ?? '';
  const serverSettings = Object.fromEntries(settings.split(/\s+/).filter(Boolean).map((pair) => pair.split('=', 2) as [string, string]));
  return { page, text, blocks, serverSettings };
}

/** Why the docs test cannot run this block as it stands, or undefined when it can. */
export function blockProblem(block: DocsBlock): string | undefined {
  if (block.notRun !== undefined) {
    return block.notRun.length < 10 ? `its "not run" marker gives no reason ("${block.notRun}"): say why a reader's copy cannot be run here` : undefined;
  }
  if (block.example !== undefined) return undefined;
  if (block.language === undefined) {
    return `a \`\`\`${block.info || '(no language)'} block is not something the docs test runs (it runs sh, js, ts and python): put <!-- not run: reason --> on the line before it, or <!-- example: name --> if a test of its own runs it`;
  }
  return undefined;
}

export const where = (block: DocsBlock) => `${block.page}:${block.line}`;
