// Prints the schema to schema/schema.graphql (committed; a test checks it has not drifted).
import { writeFileSync } from 'node:fs';
import { printSchema, lexicographicSortSchema } from 'graphql';
import { schema } from './index.js';

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('./schema.graphql', import.meta.url), printedSchema());
  console.log('schema/schema.graphql written');
}
