// A PostgreSQL wire-protocol proxy (node:net) between the app and its database, to lose a COMMIT's
// answer on purpose: it reads the client's messages, and once armed, at the COMMIT of a transaction
// that wrote what it watches for, either forwards the COMMIT and cuts both sockets as soon as the
// server answers (the write committed, the client never learns it), or cuts without forwarding (the
// write did not commit). Works over TCP and over the embedded database's unix socket.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type CommitFault = 'lose-answer' | 'cut-before';

export interface ArmOptions {
  fault: CommitFault;
  /** only a transaction that sent SQL matching this counts; default: any transaction */
  wrote?: RegExp;
}

export interface PgProxy {
  /** where to connect: a TCP port on 127.0.0.1, or a folder holding `.s.PGSQL.<port>` */
  host: string;
  port: number;
  /** the next matching COMMIT (on any connection) gets the fault; resolves once it has been inflicted */
  arm(opts: ArmOptions): Promise<void>;
  /** SQL the proxy saw from clients, for debugging a test */
  seen(): string[];
  close(): Promise<void>;
}

type Upstream = { host: string; port: number } | { path: string };

/** The SQL text of a simple Query ('Q') or Parse ('P') message, else null. */
function sqlOf(type: number, body: Buffer): string | null {
  if (type === 0x51) return body.toString('utf8', 0, Math.max(0, body.length - 1));
  if (type === 0x50) {
    const nameEnd = body.indexOf(0);
    const textEnd = body.indexOf(0, nameEnd + 1);
    return body.toString('utf8', nameEnd + 1, textEnd);
  }
  return null;
}

export async function startPgProxy(upstream: Upstream, listen: 'tcp' | 'unix' = 'tcp'): Promise<PgProxy> {
  let armed: (ArmOptions & { done: () => void }) | null = null;
  const seen: string[] = [];
  const sockets = new Set<Socket>();

  const onClient = (client: Socket) => {
    const server = 'path' in upstream ? connect(upstream.path) : connect(upstream.port, upstream.host);
    sockets.add(client);
    sockets.add(server);
    const cut = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', cut);
    server.on('error', cut);
    client.on('close', () => {
      sockets.delete(client);
      server.end();
    });
    server.on('close', () => {
      sockets.delete(server);
      client.end();
    });
    let swallowing = false;
    server.on('data', (chunk) => {
      if (swallowing) return cut(); // the COMMIT's answer: dropped, and the connection with it
      client.write(chunk);
    });

    let pending = Buffer.alloc(0);
    let startup = true;
    let wroteWatched = false;
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const out: Buffer[] = [];
      for (;;) {
        if (startup) {
          if (pending.length < 4) break;
          const len = pending.readInt32BE(0);
          if (pending.length < len) break;
          out.push(pending.subarray(0, len));
          pending = pending.subarray(len);
          startup = false;
          continue;
        }
        if (pending.length < 5) break;
        const type = pending[0];
        const len = pending.readInt32BE(1);
        if (pending.length < len + 1) break;
        const message = pending.subarray(0, len + 1);
        pending = pending.subarray(len + 1);
        const sql = sqlOf(type, message.subarray(5));
        if (sql !== null) {
          seen.push(sql);
          if (/^\s*(begin|start transaction)/i.test(sql)) wroteWatched = false;
          if (armed && (!armed.wrote || armed.wrote.test(sql))) wroteWatched = true;
          if (armed && wroteWatched && /^\s*commit\b/i.test(sql)) {
            const fault = armed;
            armed = null;
            if (out.length) server.write(Buffer.concat(out));
            if (fault.fault === 'cut-before') cut();
            else {
              swallowing = true;
              server.write(message);
            }
            fault.done();
            return;
          }
        }
        out.push(message);
      }
      if (out.length) server.write(Buffer.concat(out));
    });
  };

  const proxy: Server = createServer(onClient);
  let host: string;
  let port: number;
  let dir: string | undefined;
  if (listen === 'unix') {
    dir = await mkdtemp(join(tmpdir(), 'pg-proxy-'));
    port = 5432;
    const path = join(dir, `.s.PGSQL.${port}`);
    await new Promise<void>((r) => proxy.listen(path, r));
    host = dir;
  } else {
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const address = proxy.address();
    port = typeof address === 'object' && address ? address.port : 0;
    host = '127.0.0.1';
  }
  return {
    host,
    port,
    arm: (opts) => new Promise<void>((done) => (armed = { ...opts, done })),
    seen: () => seen,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
