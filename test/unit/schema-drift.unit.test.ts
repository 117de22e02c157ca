import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../schema/print.js';

describe('generated files', () => {
  it('schema/schema.graphql is the schema the code builds (run `npm run schema:print`)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });
});
