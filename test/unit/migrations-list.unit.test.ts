// The migrations run in the order of this list, and the migrator reads executed names against it: a list
// out of name order (two branches each appending its migration) makes `down` look for a file on disk.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationsList } from '../../migrations/index.js';

describe('migrations/index.ts', () => {
  it('lists every migration file once, in name (timestamp) order', () => {
    const names = migrationsList.map((m) => m.name);
    const files = readdirSync(new URL('../../migrations/', import.meta.url))
      .filter((f) => /^Migration\d{14}_\w+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''));
    expect(names).toEqual([...files].sort());
    for (const m of migrationsList) expect(m.class.name).toBe(m.name);
  });
});
