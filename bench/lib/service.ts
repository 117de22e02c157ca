// Starts the built service (or its CLI) as a child process, the way an operator would run it.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/market-service.js');

export const ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password-123' };

export interface ServiceEnv {
  databaseUrl?: string;
  dataDir: string;
  poolMax?: number;
  logFile: string;
  /** extra node flags, e.g. --cpu-prof */
  nodeArgs?: string[];
  /** a different entry (bench-only builds); default the service CLI */
  entry?: string;
  extraEnv?: Record<string, string>;
}

export interface Service {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  return port;
}

export function serviceEnv(env: ServiceEnv, port = 0): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    SESSION_SECRET: 'bench-session-secret-bench-session-secret',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATA_DIR: env.dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DB_POOL_MAX: String(env.poolMax ?? 10),
    // No instance sends webhooks but the one bench/webhooks.ts starts (its endpoints would be shared by all).
    WEBHOOKS: 'false',
    ...(env.databaseUrl ? { DATABASE_URL: env.databaseUrl } : {}),
    ...env.extraEnv,
  };
}

export async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`service not ready within ${timeoutMs} ms`);
}

/** Starts the service and resolves once /readyz answers 200. */
export async function startService(env: ServiceEnv): Promise<Service & { readyMs: number }> {
  const port = await freePort();
  // The service writes its log straight to the file: no pipe through this (load-generating) process.
  const log = openSync(env.logFile, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, [...(env.nodeArgs ?? []), env.entry ?? BIN, 'start'], {
    cwd: ROOT,
    env: serviceEnv(env, port),
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const readyMs = performance.now() - started;
  return { url, child, readyMs, stop: () => stopChild(child) };
}

/** SIGTERM, then SIGKILL after 15 s; resolves when the process exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Starts a long-running `market-service <args>` (e.g. `relay nats`), its output to the log file; stop() ends it. */
export function spawnCli(env: ServiceEnv, args: string[]): { child: ChildProcess; stop(): Promise<void> } {
  const log = openSync(env.logFile, 'a');
  const child = spawn(process.execPath, [...(env.nodeArgs ?? []), BIN, ...args], { cwd: ROOT, env: serviceEnv(env), stdio: ['ignore', log, log] });
  closeSync(log);
  return { child, stop: () => stopChild(child) };
}

/** Runs `market-service <args>` to completion; answers its stdout. */
export async function runCli(env: ServiceEnv, args: string[], timeoutMs = 30 * 60_000): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: serviceEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`market-service ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`);
  return out;
}
