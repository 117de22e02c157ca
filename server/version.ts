// The service's version (package.json), found the same way from sources and from dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function serviceVersion(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = resolve(dir, '..')) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (cached = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version);
  }
  return (cached = 'unknown');
}
