// The lines `market-service mcp` lets through to the SDK's stdio transport, and the answers it gives the others.
import { Transform, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { toolCallRefusal } from './server.js';

/** The longest line read, as the SDK's stdio transport bounds its buffer: one request cannot hold the process's memory. */
export const STDIO_MAX_LINE_CHARS = 10 * 1024 * 1024;

/**
 * The lines of `input` that the SDK's stdio transport should read. It skips a line that is not JSON without a
 * word, and reports one that is not a JSON-RPC message only to `onerror`; JSON-RPC asks for an answer (-32700
 * Parse error, -32600 Invalid Request) with id null, since no id could be read. A tools/call whose params break
 * the protocol's schema is answered here too (see toolCallRefusal), and so is a line over STDIO_MAX_LINE_CHARS
 * (it is dropped as it arrives). Those lines get their answer through `reply` and go no further; the server
 * keeps serving. Bytes are decoded as a stream, so a character split between two reads stays whole.
 */
export function guardedLines(input: Readable, reply: (message: unknown) => void): Readable {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let skipping = false;
  const pass = (line: string, out: Transform) => {
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line that is not JSON. Send one JSON-RPC message per line.' } });
    }
    try {
      parseJSONRPCMessage(parsed);
    } catch {
      return reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message.' } });
    }
    const refused = toolCallRefusal(parsed);
    if (refused) return reply(refused);
    out.push(`${line}\n`);
  };
  const take = (text: string, out: Transform) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // the end of a line already refused as too long
      if (skipping) skipping = false;
      else pass(line.replace(/\r$/, ''), out);
    }
    if (pending.length > STDIO_MAX_LINE_CHARS) {
      if (!skipping) {
        reply({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: `Invalid Request: a line over ${STDIO_MAX_LINE_CHARS} characters. Send smaller messages.` },
        });
      }
      skipping = true;
      pending = '';
    }
  };
  return input.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        take(decoder.write(chunk), this);
        done();
      },
      flush(done) {
        take(decoder.end(), this);
        if (!skipping) pass(pending, this);
        done();
      },
    }),
  );
}
