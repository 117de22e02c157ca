// admin-web/src/gql/ is generated from schema/schema.graphql and the app's operations; this proves
// the committed files are what codegen produces now (run `npm run codegen` when it fails).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate } from '@graphql-codegen/cli';
import config from '../../codegen.js';

describe('generated files', () => {
  it('admin-web/src/gql/ matches the schema and the operations (run `npm run codegen`)', async () => {
    const files: { filename: string; content: string }[] = await generate({ ...config, silent: true, cwd: process.cwd() }, false);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const committed = readFileSync(file.filename, 'utf8');
      expect(committed, file.filename).toBe(file.content);
    }
  }, 60_000);
});
