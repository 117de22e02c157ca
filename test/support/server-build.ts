// The command line the tests start as a child process (`market-service start`, `mcp`, `export`, …) is the
// built one, as an operator runs it: `bin/market-service.js`, which loads dist/. Through tsx every child
// transpiled and resolved each module again (a server's start: 3.9–4.9 s of CPU against 1.8–2.0 built, and
// the suite starts about a hundred). dist/ is rebuilt first whenever a source is newer than its output, so
// a test never runs yesterday's code; `npm run build` (CI's first step) leaves nothing to do.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
/** The entry `npm start` and the tests run. */
export const CLI = join(ROOT, 'bin/market-service.js');
/** What tsconfig.build.json compiles. */
const SOURCES = ['server', 'schema', 'migrations'];
const LOCK = join(ROOT, 'dist', '.test-build-lock');

/** Sources (.ts) whose output in dist/ is missing or older than they are. */
function staleSources(dir = '', found: string[] = []): string[] {
  for (const top of dir ? [dir] : SOURCES) {
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      const path = join(top, entry.name);
      if (entry.isDirectory()) staleSources(path, found);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const out = join(ROOT, 'dist', path.replace(/\.ts$/, '.js'));
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(ROOT, path)).mtimeMs) found.push(path);
      }
    }
  }
  return found;
}

let built = false;

/**
 * Builds dist/ (the server, its schema and migrations) when a source is newer than its output. Type errors
 * are `npm run typecheck`'s to report: this emits without checking (`--noCheck`), in seconds. Two workers
 * never build at once: the first takes a lock folder, the other waits for it to go and checks again.
 */
export function ensureServerBuild(): void {
  if (built) return;
  for (let tries = 0; tries < 2 && staleSources().length > 0; tries++) {
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    try {
      mkdirSync(LOCK);
    } catch {
      // another worker builds: wait for its lock to go (a lock left by a killed run goes after 2 minutes), then look again
      const since = Date.now();
      while (existsSync(LOCK) && Date.now() - since < 120_000) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      if (existsSync(LOCK)) rmdirSync(LOCK);
      continue;
    }
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], {
        cwd: ROOT,
        stdio: 'pipe',
      });
    } catch (err) {
      const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`building dist/ for the tests failed:\n${String(stdout ?? '')}${String(stderr ?? '')}`, { cause: err });
    } finally {
      rmdirSync(LOCK);
    }
    break;
  }
  built = true;
}

/** `[node, args]` that run `market-service <args>` from the build. */
export function cliCommand(args: string[]): [string, string[]] {
  ensureServerBuild();
  return [process.execPath, [CLI, ...args]];
}
