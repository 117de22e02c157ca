// Structured logs; secrets are redacted by path wherever they could appear.
import { pino, destination, type Logger, type DestinationStream } from 'pino';
import { activeTraceId } from './tracing.js';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      // Every line logged inside a traced request carries its trace id (SPEC §9).
      mixin: () => {
        const traceId = activeTraceId();
        return traceId ? { traceId } : {};
      },
      redact: {
        paths: [
          'password', '*.password', 'newPassword', '*.newPassword', 'currentPassword', '*.currentPassword',
          'key', '*.key', 'token', '*.token',
          'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** For the stdio MCP server: stdout carries the protocol, so logs go to stderr. */
export function pinoStderr(): DestinationStream {
  return destination(2);
}
