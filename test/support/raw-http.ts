// Raw HTTP probes for the security tests: exact headers in, every header and the raw text out.
import type { TestApp } from './app.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** the body parsed as JSON, or null */
  json: any;
}

export async function raw(app: TestApp, method: string, path: string, headers: Record<string, string> = {}, body?: BodyInit): Promise<RawResponse> {
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const res = await fetch(`${app.url}${path}`, init);
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Every `Access-Control-Allow-*` header of an answer (none means: no cross-origin access). */
export function allowHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers.entries()].filter(([name]) => name.startsWith('access-control-allow-')));
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One JSON-RPC request to /mcp as `key` (a stateless server answers without initialize). */
export function rpc(app: TestApp, key: string | undefined, method: string, params: unknown, headers: Record<string, string> = {}) {
  return raw(
    app,
    'POST',
    '/mcp',
    { ...MCP_HEADERS, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  );
}

/** A body of exactly `bytes` bytes: the JSON document padded with trailing whitespace (still valid JSON). */
export function paddedJson(doc: unknown, bytes: number): string {
  const text = JSON.stringify(doc);
  if (Buffer.byteLength(text) > bytes) throw new Error('document larger than the padding target');
  return text + ' '.repeat(bytes - Buffer.byteLength(text));
}
