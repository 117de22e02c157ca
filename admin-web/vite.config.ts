import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const root = fileURLToPath(new URL('.', import.meta.url));

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
/** Text a browser downloads; images and fonts are compressed formats already. */
const COMPRESSIBLE = /\.(js|mjs|css|svg|json|html|txt|map)$/;

/**
 * Writes a .br and a .gz next to every hashed asset, once at build time at the highest levels, so the server
 * sends them as files (server/http/admin-web.ts) instead of compressing on every request. A variant that
 * would not be smaller is left out; the server then sends the original.
 */
function precompress(): Plugin {
  return {
    name: 'market-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const outDir = options.dir ?? join(root, 'dist');
      const files = Object.values(bundle).filter((f) => f.fileName.startsWith('assets/') && COMPRESSIBLE.test(f.fileName));
      await Promise.all(
        files.map(async (file) => {
          // the bytes as written, so a decoded variant is exactly the file
          const source = await readFile(join(outDir, file.fileName));
          const variants = [
            [
              '.br',
              await brotli(source, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                  [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
                },
              }),
            ],
            ['.gz', await gz(source, { level: constants.Z_BEST_COMPRESSION })],
          ] as const;
          for (const [ext, bytes] of variants) if (bytes.length < source.length) await writeFile(join(outDir, `${file.fileName}${ext}`), bytes);
        }),
      );
    },
  };
}

export default defineConfig({
  root,
  plugins: [react(), precompress()],
  build: { outDir: 'dist', emptyOutDir: true },
  server: {
    proxy: { '/graphql': 'http://127.0.0.1:3000', '/api': 'http://127.0.0.1:3000' },
  },
});
