// Runs the real server as a child process (the built command line, kept up to date with the sources by
// builds.ts), for multi-instance and crash tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { cliCommand } from './builds.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait; resolves with the exit code */
  stop(): Promise<number | null>;
  /** SIGKILL: no cleanup at all */
  kill(): Promise<void>;
}

export async function startServerProcess(env: Record<string, string>, timeoutMs = 150_000): Promise<ServerProcess> {
  const port = await freePort();
  const [node, args] = cliCommand(['start']);
  const child = spawn(node, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      PASSWORD_HASHING: 'floor',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready after ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `market-service <args>` as a child process, not waited on (e.g. a start meant not to become ready). */
export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  const [node, cli] = cliCommand(args);
  return spawn(node, cli, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PASSWORD_HASHING: 'floor', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs one `market-service <args>` command to its end; `timeoutMs` kills it and fails. */
export async function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliRun> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  if (code === null) throw new Error(`market-service ${args.join(' ')} was killed after ${timeoutMs} ms:\n${stdout}${stderr}`);
  return { code, stdout, stderr };
}
