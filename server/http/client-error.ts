// SPEC §5/§7: a request Node's HTTP parser refuses before the app sees it (request line or headers over
// the limit) still gets a problem document with a request id, as every other refusal does.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';
import type { NextFunction, Request, Response } from 'express';
import { problemBody, sendCode } from '../rest/problem.js';
import { refuse } from '../domain/errors.js';
import { REFUSAL_STATUS, REFUSAL_TITLE } from './refusal-status.js';

/** The longest request line the app serves (8 KiB, as common proxies); longer ones are 414 (SPEC §5). */
export const MAX_REQUEST_LINE_BYTES = 8192;

/**
 * Node counts the request line and the headers together against one limit (16 KiB). What overflowed is
 * read from the bytes it was parsing: when they begin with a request line that did not end within
 * MAX_REQUEST_LINE_BYTES, the URI is too long (414); otherwise the headers are too large (431).
 */
type Overflow = 'uri_too_long' | 'headers_too_large';

function overflowCode(rawPacket: unknown): Overflow {
  if (!Buffer.isBuffer(rawPacket) || !/^[A-Z]+ /.test(rawPacket.subarray(0, 16).toString('latin1'))) return 'headers_too_large';
  const lineEnd = rawPacket.indexOf('\n');
  return lineEnd === -1 || lineEnd > MAX_REQUEST_LINE_BYTES ? 'uri_too_long' : 'headers_too_large';
}

const DETAIL: Record<Overflow, string> = {
  uri_too_long: 'The request line is too long to serve (at most 8 KiB): send the long parts in a body, or ask for less at once.',
  headers_too_large: 'The request headers are too large to serve (16 KiB with the request line): send fewer or smaller headers.',
};

function answer(socket: Socket, code: Overflow, requestId: string): void {
  const status = REFUSAL_STATUS[code];
  const body = JSON.stringify(problemBody(refuse(code, DETAIL[code]), requestId));
  socket.write(
    `HTTP/1.1 ${status} ${REFUSAL_TITLE[code]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The same 414 for a request line the parser let through (8–16 KiB), answered by the app with its request id. */
export function limitRequestLine(req: Request, res: Response, next: NextFunction): void {
  if (req.url.length + req.method.length + 10 <= MAX_REQUEST_LINE_BYTES) return next();
  sendCode(res, 'uri_too_long', DETAIL.uri_too_long, req.requestId);
}

/**
 * Node's own answers, kept for the other parser errors (a timeout is 408, anything else 400); a socket
 * that is gone, or whose response has begun, gets nothing (the docs' advice for a `clientError` handler).
 */
function serveClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      const requestId = randomUUID();
      const code = overflowCode(err.rawPacket);
      logger.info({ requestId, status: REFUSAL_STATUS[code], code }, 'request refused by the HTTP parser');
      answer(socket, code, requestId);
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    } else {
      socket.write('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    }
    // everything written, then the socket closes (the parser cannot go on reading it)
    socket.destroySoon();
  });
}

/** Longer than the usual load balancer idle timeout (60 s), so the balancer, not us, closes idle sockets. */
export const KEEP_ALIVE_MS = 65_000;

/**
 * What every listening server of the service does (the service's and the tests' alike): answers malformed
 * requests (`serveClientErrors`) and keeps an idle socket open KEEP_ALIVE_MS. A client whose own idle limit is
 * shorter (undici's 4 s) then closes first: a server closing an idle socket as the client reuses it is the
 * race that resets the client's request (ECONNRESET).
 */
export function serveConnections(server: Server, logger: Logger): void {
  serveClientErrors(server, logger);
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
}
