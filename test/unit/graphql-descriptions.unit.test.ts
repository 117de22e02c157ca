// Issue 15: the GraphQL schema describes itself — every type, field, argument, input field and enum value
// has a description (most come from the zod schemas the REST document and MCP tools read).
import { isEnumType, isInputObjectType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../schema/index.js';

describe('the GraphQL schema', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          if ('args' in field) for (const arg of field.args) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
    }
    expect(missing).toEqual([]);
  });
});
