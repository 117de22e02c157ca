// What the tests run that must be built first, and is rebuilt when its sources are newer than the build:
// the command line they start as a child process (`market-service start`, `mcp`, `export`, …: dist/, run as
// an operator runs it, `bin/market-service.js`) and the admin app the server serves (admin-web/dist). A test
// never runs yesterday's code, and after `npm run build` (CI's first step) there is nothing to do.
// Through tsx every child used to transpile and resolve each module again (a server's start: 3.9–4.9 s of CPU
// against 1.8–2.0 built, and the suite starts about a hundred).
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLI = join(ROOT, 'bin/market-service.js');
const WEB = join(ROOT, 'admin-web');

/**
 * Runs `build` when `stale()` says so, in one worker at a time: the files of a run share the build, and two
 * builds at once would write (vite: empty, then write) the same folder under each other. The first worker
 * takes a lock folder; another waits for it to go and looks again (a lock a killed run left goes after 2 min).
 * Once fresh, a worker does not look again: the sources do not change during a run.
 */
function buildWhenStale(name: string, stale: () => boolean, build: () => void): () => void {
  // under node_modules/ (ignored by git): a lock a killed run leaves behind never shows in the tree
  const lock = join(ROOT, 'node_modules', '.cache', `market-test-build-${name}.lock`);
  let fresh = false;
  return () => {
    if (fresh) return;
    for (let tries = 0; tries < 2 && stale(); tries++) {
      mkdirSync(dirname(lock), { recursive: true });
      try {
        mkdirSync(lock);
      } catch {
        const since = Date.now();
        while (existsSync(lock) && Date.now() - since < 120_000) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
        if (existsSync(lock)) rmdirSync(lock);
        continue;
      }
      try {
        build();
      } catch (err) {
        const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
        throw new Error(`building ${name} for the tests failed:\n${String(stdout ?? '')}${String(stderr ?? '')}`, { cause: err });
      } finally {
        rmdirSync(lock);
      }
      break;
    }
    fresh = true;
  };
}

/** Whether a source (.ts) of server/, schema/ or migrations/ has no output in dist/, or a newer one. */
function serverStale(dir = ''): boolean {
  for (const top of dir ? [dir] : ['server', 'schema', 'migrations']) {
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      const path = join(top, entry.name);
      if (entry.isDirectory()) {
        if (serverStale(path)) return true;
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const out = join(ROOT, 'dist', path.replace(/\.ts$/, '.js'));
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(ROOT, path)).mtimeMs) return true;
      }
    }
  }
  return false;
}

/**
 * dist/ (the server, its schema and migrations), built when stale. Type errors are `npm run typecheck`'s to
 * report: this emits without checking (`tsc --noCheck`), in about 5 s.
 */
export const ensureServerBuild = buildWhenStale('server', serverStale, () =>
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], {
    cwd: ROOT,
    stdio: 'pipe',
  }),
);

function newestMtime(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((f) => newestMtime(join(path, f))));
}

/** admin-web/dist, which the server serves: built when missing or older than its sources. */
export const ensureWebBuild = buildWhenStale(
  'admin-web',
  () => {
    const built = join(WEB, 'dist', 'index.html');
    const sources = Math.max(newestMtime(join(WEB, 'src')), newestMtime(join(WEB, 'index.html')), newestMtime(join(WEB, 'vite.config.ts')));
    return !existsSync(built) || statSync(built).mtimeMs < sources;
  },
  () => execSync('npm run build:web', { cwd: ROOT, stdio: 'pipe' }),
);

/**
 * `[node, args]` that run `market-service <args>` from the build. With `--liftoff-only`: V8 compiles the
 * embedded database's WebAssembly with its baseline compiler only, not again with the optimising one for
 * code a child of a few seconds runs too briefly to profit from (measured: an export on the embedded
 * database 3.5 -> 2.5 CPU-s; dump, operations and process tests 231 -> 211 CPU-s). The same program, a
 * different compiler tier: the in-process tests keep V8's defaults, and on PostgreSQL nothing changes.
 */
export function cliCommand(args: string[]): [string, string[]] {
  ensureServerBuild();
  return [process.execPath, ['--liftoff-only', CLI, ...args]];
}
