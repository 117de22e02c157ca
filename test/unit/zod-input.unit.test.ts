// zodInputType states a GraphQL input from the zod schema the use case parses: arrays, enums, dates and
// UUIDs included, so no input type is written twice. These pin what each JSON Schema shape becomes.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getNamedType, isEnumType, isListType, isNonNullType, type GraphQLInputType } from 'graphql';
import { graphqlShapeOf, inputJsonOf } from '../../schema/zod-input.js';
import { schema as builtSchema } from '../../schema/index.js';
import { uuidSchema } from '../../server/application/schemas.js';

const shapeOf = (schema: z.ZodObject, field: string) => graphqlShapeOf(inputJsonOf(schema).properties![field], field);
const named = (shape: ReturnType<typeof shapeOf>) => (typeof shape.named === 'string' ? shape.named : 'enum');

describe('zodInputType: what a zod field becomes in GraphQL', () => {
  const s = z.strictObject({
    id: uuidSchema,
    ids: z.array(uuidSchema).max(100).nullish(),
    zid: z.uuid(),
    at: z.iso.datetime({ offset: true }).nullish(),
    kind: z.enum(['human', 'agent']).optional(),
    grants: z.array(z.enum(['tensions:*', 'users:read'])),
    count: z.number().int().min(0),
    ratio: z.number(),
    flag: z.boolean().nullable(),
    text: z.string().max(10),
  });

  it('maps scalars, UUIDs and dates', () => {
    expect(shapeOf(s, 'id')).toEqual({ named: 'ID', list: false, nullable: false });
    expect(shapeOf(s, 'zid').named).toBe('ID');
    expect(shapeOf(s, 'at')).toEqual({ named: 'DateTime', list: false, nullable: true });
    expect(shapeOf(s, 'count').named).toBe('Int');
    expect(shapeOf(s, 'ratio').named).toBe('Float');
    expect(shapeOf(s, 'flag')).toEqual({ named: 'Boolean', list: false, nullable: true });
    expect(shapeOf(s, 'text').named).toBe('String');
  });

  it('maps arrays to lists of non-null items, nullable when the array is', () => {
    expect(shapeOf(s, 'ids')).toEqual({ named: 'ID', list: true, nullable: true });
    expect(shapeOf(s, 'grants')).toMatchObject({ named: 'String', list: true, nullable: false });
  });

  it('maps an enum to the GraphQL enum declared with exactly its values, else String', () => {
    expect(named(shapeOf(s, 'kind'))).toBe('enum');
    expect(shapeOf(z.strictObject({ k: z.enum(['human', 'agent', 'robot']) }), 'k').named).toBe('String');
  });

  it('refuses shapes a GraphQL input here cannot say, when the schema is built', () => {
    expect(() => shapeOf(z.strictObject({ o: z.object({ a: z.string() }) }), 'o')).toThrow(/unsupported/);
    expect(() => shapeOf(z.strictObject({ u: z.union([z.string(), z.number()]) }), 'u')).toThrow(/unsupported/);
    expect(() => shapeOf(z.strictObject({ n: z.array(z.array(z.string())) }), 'n')).toThrow(/unsupported/);
    expect(() => shapeOf(z.strictObject({ n: z.array(z.string().nullable()) }), 'n')).toThrow(/unsupported/);
  });

  it('builds the generated inputs of the schema with those types', () => {
    const schema = builtSchema;
    const field = (type: string, name: string): GraphQLInputType => {
      const t = schema.getType(type) as { getFields(): Record<string, { type: GraphQLInputType }> };
      return t.getFields()[name].type;
    };
    const userType = field('CreateUserInput', 'type');
    expect(isEnumType(userType) && userType.name).toBe('UserType');
    const roleIds = field('CreateUserInput', 'roleIds');
    expect(isListType(roleIds) && isNonNullType(roleIds.ofType) && getNamedType(roleIds).name).toBe('ID');
    expect(getNamedType(field('CreateApiKeyInput', 'expiresAt')).name).toBe('DateTime');
    expect(isNonNullType(field('CreateRoleInput', 'permissions'))).toBe(true);
  });
});
