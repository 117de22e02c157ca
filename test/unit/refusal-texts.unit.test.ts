// SPEC §7: every refusal's detail is a plain sentence for a person, without markup. Refusal texts are
// string literals passed to a handful of builders; none may carry Markdown backticks.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['server', 'schema'];
const BUILDERS = /\b(refuse|validationFailed|UNAUTHENTICATED|sendCode|graphqlRefusal|new GraphQLError|addIssue)\(/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('refusal texts', () => {
  it('carry no markup: no backticks in a text handed to a refusal builder', () => {
    const offenders: string[] = [];
    for (const file of ROOTS.flatMap(sources)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!BUILDERS.test(line)) return;
          // quoted literals on the line ('…' or "…"), template literals excluded: their backticks are syntax
          for (const [, text] of line.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)) {
            if (text?.includes('`')) offenders.push(`${file}:${i + 1}: ${text}`);
          }
        });
    }
    expect(offenders).toEqual([]);
  });
});
