#!/usr/bin/env node
// Runs the built CLI; `npm run build` produces dist/.
import { existsSync } from 'node:fs';
import module from 'node:module';
// Node 22+ caches compiled modules between starts (a faster start); Node 20 has no such cache.
module.enableCompileCache?.();
const entry = new URL('../dist/server/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('market-service is not built yet: run `npm run build` (npm start does it for you).');
  process.exit(1);
}
await import(entry.href);
