import type { FastifyInstance } from 'fastify';

/**
 * Vigil's API reference at /docs: one HTML page rendered on the server from the OpenAPI document,
 * with no script at all. Hand-written rather than Swagger UI (its page had the product's only
 * axe violations and Fastify's branding) or Scalar/Redoc (megabytes of script, not installable
 * here, and neither axe-clean out of the box): a reference is headings, tables and code, which
 * plain HTML does best, readable at 375 px and in dark mode.
 */

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; $ref?: string }>;
}

interface Document {
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** Backticks in the API's descriptions become code, as in the Markdown they are written in. */
const prose = (text: string | undefined): string => (text ? escape(text).replace(/`([^`]+)`/g, '<code>$1</code>') : '');

const refName = (ref: string): string => ref.split('/').pop()!;

function typeOf(schema: Schema | undefined, document: Document): string {
  if (!schema) return 'any';
  if (schema.$ref) return refName(schema.$ref);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((one) => typeOf(one, document)).join(' | ');
  if (schema.type === 'array') return `array of ${typeOf(schema.items, document)}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'object');
  return schema.format ? `${type} (${schema.format})` : type;
}

function resolve(schema: Schema | undefined, document: Document): Schema | undefined {
  if (schema?.$ref) return document.components?.schemas?.[refName(schema.$ref)];
  return schema;
}

/** An object schema's fields as a table; anything else as its type. */
function fieldsTable(schema: Schema | undefined, document: Document, caption: string): string {
  const resolved = resolve(schema, document);
  const variants = resolved?.anyOf ?? resolved?.oneOf;
  if (variants && variants.every((one) => resolve(one, document)?.properties)) {
    return variants.map((one, index) => fieldsTable(one, document, `${caption} (form ${index + 1} of ${variants.length})`)).join('');
  }
  if (!resolved?.properties) return `<p>${escape(caption)}: <code>${escape(typeOf(schema, document))}</code></p>`;
  const required = new Set(resolved.required ?? []);
  const rows = Object.entries(resolved.properties)
    .map(
      ([name, field]) =>
        `<tr><th scope="row"><code>${escape(name)}</code>${required.has(name) ? ' <span class="required">required</span>' : ''}</th><td><code>${escape(typeOf(field, document))}</code></td><td>${prose(field.description)}</td></tr>`,
    )
    .join('');
  return `<div class="scroll" tabindex="0" role="region" aria-label="${escape(caption)}"><table><caption>${escape(caption)}</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function parameterOf(parameter: Parameter, document: Document): Parameter {
  return parameter.$ref ? (document.components?.parameters?.[refName(parameter.$ref)] ?? parameter) : parameter;
}

function operationHtml(path: string, method: string, operation: Operation, document: Document): string {
  const id = operation.operationId ?? `${method}-${path}`;
  const title = operation.summary ?? `${method.toUpperCase()} ${path}`;
  const parameters = (operation.parameters ?? []).map((one) => parameterOf(one, document)).filter((one) => one.in === 'path' || one.in === 'query');
  const parameterRows = parameters
    .map(
      (one) =>
        `<tr><th scope="row"><code>${escape(one.name)}</code>${one.required ? ' <span class="required">required</span>' : ''}</th><td>${escape(one.in)}</td><td><code>${escape(typeOf(one.schema, document))}</code></td><td>${prose(one.description ?? one.schema?.description)}</td></tr>`,
    )
    .join('');
  const body = operation.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(operation.responses ?? {})
    .map(([status, response]) => `<li><code>${escape(status)}</code> ${prose(response.description)}</li>`)
    .join('');
  const example = `curl ${method === 'get' ? '' : `-X ${method.toUpperCase()} `}"$VIGIL_BASE_URL${escape(path.replace(/^\/api\/v1/, ''))}" \\\n  -H "Authorization: Bearer $VIGIL_API_KEY"${body ? ` \\\n  -H "Content-Type: application/json" -d '{…}'` : ''}`;
  return `<article class="operation" id="${escape(id)}" aria-labelledby="${escape(id)}-title">
<h3 id="${escape(id)}-title">${escape(title)}</h3>
<p class="endpoint"><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></p>
${operation.description ? `<p>${prose(operation.description)}</p>` : ''}
${parameterRows ? `<div class="scroll" tabindex="0" role="region" aria-label="Parameters of ${escape(title)}"><table><caption>Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead><tbody>${parameterRows}</tbody></table></div>` : ''}
${body ? fieldsTable(body, document, `Request body of ${title}`) : ''}
<h4>Responses</h4><ul class="responses">${responses}</ul>
<pre tabindex="0" aria-label="Example of ${escape(title)}"><code>${example}</code></pre>
</article>`;
}

const logo =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><path d="M4 16c3.2-5.3 7.2-8 12-8s8.8 2.7 12 8c-3.2 5.3-7.2 8-12 8s-8.8-2.7-12-8z" fill="#fff"/><circle cx="16" cy="16" r="4.6" fill="#1d4ed8"/><circle cx="16" cy="16" r="1.8" fill="#fbbf24"/></svg>';

const styles = `
:root{color-scheme:light dark;--text:#1a1d23;--page:#f6f7f9;--surface:#fff;--line:#d4d8de;--muted:#4b5563;--accent:#1d4ed8;--code:#eef1f5;--get:#047857;--post:#1d4ed8;--patch:#92400e;--delete:#b91c1c}
@media (prefers-color-scheme:dark){:root{--text:#e5e7eb;--page:#0b0f17;--surface:#151b26;--line:#2e3746;--muted:#a9b2c0;--accent:#8ab4ff;--code:#1e2533;--get:#6ee7b7;--post:#8ab4ff;--patch:#fcd34d;--delete:#fca5a5}}
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--text);background:var(--page);line-height:1.5}
a{color:var(--accent)}code,pre{font-family:ui-monospace,Menlo,monospace;font-size:.88em}code{background:var(--code);padding:.05rem .3rem;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:.75rem;border-radius:6px;overflow-x:auto}pre code{padding:0;background:none}
header{display:flex;gap:.75rem;align-items:center;padding:.75rem 1.25rem;background:#111827;color:#f9fafb}header h1{font-size:1.3rem;margin:0}header a{color:#f9fafb}
header .links{margin-left:auto;display:flex;gap:1rem;flex-wrap:wrap;font-size:.9rem}
.layout{display:grid;grid-template-columns:16rem minmax(0,1fr);gap:0}
nav{border-right:1px solid var(--line);background:var(--surface);padding:1rem;position:sticky;top:0;max-height:100vh;overflow-y:auto}
nav ul{list-style:none;margin:0;padding:0}nav li ul{padding-left:.75rem;margin-bottom:.5rem}nav a{display:block;padding:.15rem 0;text-decoration:none}nav .tag{font-weight:700;color:var(--text);text-transform:capitalize}
main{padding:1.25rem 2rem;max-width:60rem}section{margin-bottom:2rem}section>h2{text-transform:capitalize;border-bottom:2px solid var(--line);padding-bottom:.25rem}
.operation{background:var(--surface);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:1rem 0}.operation h3{margin:0 0 .25rem}
.method{font-weight:700;font-family:ui-monospace,Menlo,monospace}.method.get{color:var(--get)}.method.post{color:var(--post)}.method.patch,.method.put{color:var(--patch)}.method.delete{color:var(--delete)}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.5rem 0}caption{text-align:left;font-weight:600}th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
.required{color:var(--muted);font-size:.8em;font-weight:400}.responses{padding-left:1.2rem}.intro{color:var(--muted)}
@media (max-width:760px){.layout{grid-template-columns:minmax(0,1fr)}nav{position:static;max-height:none;border-right:none;border-bottom:1px solid var(--line)}nav>ul{display:flex;flex-wrap:wrap;gap:0 1rem}nav li ul{display:none}main{padding:1rem .75rem}header{flex-wrap:wrap}header .links{margin-left:0}nav a{min-height:44px;display:flex;align-items:center}header a{min-height:44px;display:inline-flex;align-items:center}}
`;

export function referencePage(document: Document): string {
  const byTag = new Map<string, { path: string; method: string; operation: Operation }[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { path, method, operation }]);
    }
  }
  const tags = [...byTag.keys()];
  const describe = (tag: string) => document.tags?.find((one) => one.name === tag)?.description;
  const nav = tags
    .map(
      (tag) =>
        `<li><a class="tag" href="#tag-${escape(tag)}">${escape(tag)}</a><ul>${byTag
          .get(tag)!
          .map(({ path, method, operation }) => `<li><a href="#${escape(operation.operationId ?? `${method}-${path}`)}">${escape(operation.summary ?? path)}</a></li>`)
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = tags
    .map(
      (tag) =>
        `<section aria-labelledby="tag-${escape(tag)}"><h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${describe(tag) ? `<p class="intro">${prose(describe(tag))}</p>` : ''}${byTag
          .get(tag)!
          .map(({ path, method, operation }) => operationHtml(path, method, operation, document))
          .join('\n')}</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vigil API reference</title><link rel="icon" href="data:image/svg+xml,${encodeURIComponent(logo)}"><link rel="stylesheet" href="/docs/reference.css"></head>
<body><header>${logo}<h1>Vigil API reference</h1><div class="links"><a href="/api/v1/openapi.json">OpenAPI 3.1 document</a><a href="/api/graphql/schema.graphql">GraphQL schema</a><a href="/">Console</a></div></header>
<div class="layout"><nav aria-label="Operations"><ul>${nav}</ul></nav>
<main><p>${prose(document.info.description)} Version ${escape(document.info.version)}.</p>
<p>Every path below is under your server: <code>VIGIL_BASE_URL</code> is its address followed by <code>/api/v1</code>, and <code>VIGIL_API_KEY</code> an API key (<code>svc_live_…</code>) made by an admin in the console.</p>
${sections}</main></div></body></html>`;
}

/** GET /docs (the page) and /docs/reference.css, rendered once from the served OpenAPI document. */
export function referencePageRoutes(app: FastifyInstance, openapi: () => unknown): void {
  let page: string | undefined;
  const headers = { 'cache-control': 'no-cache', 'content-security-policy': "default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'", 'x-content-type-options': 'nosniff' };
  app.get('/docs', { schema: { hide: true } }, (_request, reply) => {
    page ??= referencePage(openapi() as Document);
    void reply.headers(headers).type('text/html; charset=utf-8').send(page);
  });
  app.get('/docs/reference.css', { schema: { hide: true } }, (_request, reply) => {
    void reply.header('cache-control', 'no-cache').type('text/css; charset=utf-8').send(styles);
  });
}
