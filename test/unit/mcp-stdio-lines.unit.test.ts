// What `market-service mcp` passes to the SDK's stdio reader, and what it answers itself.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { guardedLines, STDIO_MAX_LINE_CHARS } from '../../server/mcp/stdio-lines.js';

/** Feeds `chunks` in and collects the lines let through and the answers given. */
async function feed(chunks: Buffer[]): Promise<{ passed: unknown[]; replies: any[] }> {
  const input = new PassThrough();
  const replies: any[] = [];
  const out = guardedLines(input, (m) => replies.push(m));
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString('utf8')));
  const ended = new Promise((resolve) => out.on('end', resolve));
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await ended;
  return {
    passed: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    replies,
  };
}

const call = (id: number, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_actors', arguments: args } });

describe('stdio lines', () => {
  it('keeps a character that two reads split (UTF-8 decoded as a stream)', async () => {
    const bytes = Buffer.from(`${JSON.stringify(call(1, { q: 'Zürich 東京' }))}\n`);
    const cut = bytes.indexOf(Buffer.from('東')) + 1; // inside the three bytes of 東
    const { passed, replies } = await feed([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(replies).toEqual([]);
    expect(passed).toEqual([call(1, { q: 'Zürich 東京' })]);
  });

  it('answers what is not a JSON-RPC request the server should see, and lets the next line through', async () => {
    const lines = ['not json {', '{"hello":1}', JSON.stringify(call(2, 'text')), JSON.stringify(call(3, {}))];
    const { passed, replies } = await feed([Buffer.from(lines.join('\r\n') + '\n')]);
    expect(replies.map((r) => [r.id, r.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [2, -32602],
    ]);
    expect(replies[2].error.data).toMatchObject({ code: 'validation_failed', errors: [{ path: 'arguments', code: 'invalid_type' }] });
    expect(passed).toEqual([call(3, {})]);
  });

  it('refuses a line over the limit once, as it arrives, and serves the next one', async () => {
    const chunk = Buffer.from('x'.repeat(1024 * 1024));
    const tooLong = Array.from({ length: Math.ceil(STDIO_MAX_LINE_CHARS / chunk.length) + 1 }, () => chunk);
    const { passed, replies } = await feed([...tooLong, Buffer.from(`"tail\n${JSON.stringify(call(4, {}))}\n`)]);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/over 10485760 characters/) } }]);
    expect(passed).toEqual([call(4, {})]);
  });
});
