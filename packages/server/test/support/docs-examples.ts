import { readFileSync } from 'node:fs';

/**
 * The fenced block that follows `<!-- example: name -->` in a page of docs/ (or, given a path with a
 * folder, any page of the repository), so the tests run what the docs show.
 */
export function docsExample(name: string, page = 'dashboards.md'): string {
  const text = readFileSync(new URL(`../../../../${page.includes('/') ? page : `docs/${page}`}`, import.meta.url), 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  if (!match) throw new Error(`${page} has no example "${name}"`);
  return match[1];
}

export interface Placeholders {
  siteUrl: string;
  token?: string;
  dashboardId?: string;
  projectId?: string;
  datasetId?: string;
  theme?: string;
  embedUrl?: string;
}

/** Puts real values where the docs write https://vigil.example.com, EMBED_TOKEN, DASHBOARD_ID, … */
export function filledIn(example: string, values: Placeholders): string {
  let text = example.replaceAll('https://vigil.example.com', values.siteUrl);
  const pairs: [string, string | undefined][] = [
    ['EMBED_URL', values.embedUrl],
    ['EMBED_TOKEN', values.token],
    ['DASHBOARD_ID', values.dashboardId],
    ['PROJECT_ID', values.projectId],
    ['DATASET_ID', values.datasetId],
  ];
  for (const [placeholder, value] of pairs) if (value !== undefined) text = text.replaceAll(placeholder, value);
  if (values.theme) text = text.replace(/theme="(light|dark)"/, `theme="${values.theme}"`);
  return text;
}

/** The docs' one-tag embed with real values. */
export const embedSnippet = (values: Placeholders & { token: string; dashboardId: string }) => filledIn(docsExample('one-tag'), values);
