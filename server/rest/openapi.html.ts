// Renders the OpenAPI document as one static HTML page: operations by tag, then the named schemas, as compact type text.
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment --
   this module walks JSON Schema, which is untyped JSON by nature; every value it reads is turned into escaped text */
type Schema = Record<string, any>;

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: unknown[];
  'x-permission'?: string;
  'x-requires'?: string;
  parameters: { name: string; in: string; required: boolean; description?: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}

interface Doc {
  info: { title: string; version: string; description?: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function constraints(s: Schema): string {
  const parts: string[] = [];
  if (s.format) parts.push(s.format);
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`${s.minLength ?? 0}–${s.maxLength ?? '∞'} chars`);
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`${s.minimum ?? '−∞'}–${s.maximum ?? '∞'}`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** A schema as TypeScript-like text: `{ name: string (1–200 chars), score?: integer (1–10) }`. */
export function schemaText(s: Schema, indent = ''): string {
  if (s.$ref) return String(s.$ref).split('/').pop()!;
  const union = s.anyOf ?? s.oneOf;
  if (union) return (union as Schema[]).map((x) => schemaText(x, indent)).join(' | ') + constraints(s);
  if (s.enum) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ') + constraints(s);
  if (s.const !== undefined) return JSON.stringify(s.const);
  const type = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (type === 'array') {
    const item = schemaText(s.items ?? {}, indent);
    return `${item.includes(' ') && !item.startsWith('{') ? `(${item})` : item}[]${constraints(s)}`;
  }
  if (type === 'object' && s.properties && Object.keys(s.properties).length) {
    const required = new Set<string>(s.required ?? []);
    const inner = `${indent}  `;
    const lines = Object.entries(s.properties as Record<string, Schema>).map(([name, p]) => {
      const note = p.description ? `  // ${p.description}` : '';
      return `${inner}${name}${required.has(name) ? '' : '?'}: ${schemaText(p, inner)}${note}`;
    });
    return `{\n${lines.join('\n')}\n${indent}}`;
  }
  if (type === 'object') return 'object';
  return type ? `${type}${constraints(s)}` : 'any';
}

function access(op: Operation): string {
  if (Array.isArray(op.security) && op.security.length === 0) return 'public (no authentication)';
  const permission = op['x-permission'] ? `permission <code>${escape(op['x-permission'])}</code>` : 'any authenticated caller';
  return op['x-requires'] ? `${permission}; ${escape(op['x-requires'])}` : permission;
}

function renderOperation(base: string, path: string, method: string, op: Operation): string {
  const params = op.parameters.length
    ? `<table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>${op.parameters
        .map(
          (p) =>
            `<tr><td><code>${escape(p.name)}</code>${p.required ? '' : '?'}</td><td>${p.in}</td><td><code>${escape(schemaText(p.schema))}</code></td><td>${escape(p.description ?? '')}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  const body = op.requestBody ? `<h4>Body (application/json)</h4><pre>${escape(schemaText(op.requestBody.content['application/json'].schema))}</pre>` : '';
  const responses = Object.entries(op.responses)
    .map(([status, r]) => {
      const ok = status.startsWith('2');
      const schema = ok && r.content ? `<pre>${escape(schemaText(Object.values(r.content)[0].schema))}</pre>` : '';
      return `<li><b>${status}</b> ${escape(r.description)}${schema}</li>`;
    })
    .join('');
  return `<section id="${escape(op.operationId)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(base + path)}</code></h3>
<p>${escape(op.summary)}</p>
${op.description ? `<p>${escape(op.description)}</p>\n` : ''}<p class="access">Access: ${access(op)}</p>
${params ? `<h4>Parameters</h4>${params}` : ''}${body}<h4>Responses</h4><ul>${responses}</ul>
</section>`;
}

/** A named schema: operations show it by name (`TensionPage`), this section says what it is. */
function renderSchema(name: string, schema: Schema): string {
  return `<section id="schema-${escape(name)}">
<h3>${escape(name)}</h3>
${schema.description ? `<p>${escape(String(schema.description))}</p>\n` : ''}<pre>${escape(schemaText({ ...schema, $ref: undefined }))}</pre>
</section>`;
}

export function renderDocsPage(doc: Doc): string {
  const base = doc.servers[0]?.url ?? '';
  const schemas = Object.entries(doc.components?.schemas ?? {});
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as Operation;
      const tag = op.tags[0] ?? 'other';
      (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push(renderOperation(base, path, method, op));
      (toc.get(tag) ?? toc.set(tag, []).get(tag)!).push(
        `<li><a href="#${escape(op.operationId)}"><span class="m ${method}">${method.toUpperCase()}</span> ${escape(path)}</a></li>`,
      );
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;color:#1d232a}
pre,code{font:13px/1.4 ui-monospace,monospace}pre{background:#f4f5f7;padding:.6rem;overflow:auto;border-radius:4px}
section{border-top:1px solid #dde;padding:.4rem 0 .8rem}h4{margin:.6rem 0 .2rem}
table{border-collapse:collapse}td,th{border:1px solid #dde;padding:.15rem .5rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.2em;font:bold 12px ui-monospace,monospace}
.get{color:#1b6e2d}.post{color:#1f4fa8}.patch,.put{color:#8a5a00}.delete{color:#a31d1d}.access{color:#444}
nav ul{columns:2;list-style:none;padding:0}nav a{text-decoration:none}
</style></head><body>
<h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${escape(doc.info.description ?? '')}</p>
<p>Base URL <code>${escape(base)}</code>. Machine-readable: <a href="${escape(base)}/openapi.json"><code>${escape(base)}/openapi.json</code></a> (OpenAPI 3.1).
Every error is a problem document: <code>{ type, title, status, code, detail, requestId, … }</code>.</p>
<nav>${[...toc].map(([tag, items]) => `<h4>${escape(tag)}</h4><ul>${items.join('')}</ul>`).join('')}${
    schemas.length ? `<h4>schemas</h4><ul>${schemas.map(([name]) => `<li><a href="#schema-${escape(name)}">${escape(name)}</a></li>`).join('')}</ul>` : ''
  }</nav>
${[...byTag].map(([tag, ops]) => `<h2>${escape(tag)}</h2>${ops.join('\n')}`).join('\n')}
${schemas.length ? `<h2>Schemas</h2>\n${schemas.map(([name, schema]) => renderSchema(name, schema)).join('\n')}` : ''}
</body></html>`;
}
