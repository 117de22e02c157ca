// The GraphQL list budget (SPEC §7) counted on documents: limits multiplied through nesting, summed over
// aliases and fragments, with variables resolved; every list field of the real schema has its bounds.
import { describe, expect, it } from 'vitest';
import { buildSchema, isObjectType, parse, type GraphQLObjectType } from 'graphql';
import { listBounds, listItems } from '../../server/graphql/list-budget.js';
import { schema } from '../../schema/index.js';

describe('list bounds', () => {
  it("knows the default and maximum limit of every field that takes one, from the use cases' schemas", () => {
    const bounds = listBounds(schema);
    const withLimit = Object.values(schema.getTypeMap())
      .filter((t) => !t.name.startsWith('__') && isObjectType(t))
      .flatMap((t) =>
        Object.values((t as GraphQLObjectType).getFields())
          .filter((f) => f.args.some((a) => a.name === 'limit'))
          .map((f) => `${t.name}.${f.name}`),
      );
    expect([...bounds.keys()].sort()).toEqual(withLimit.sort());
    expect(bounds.get('Query.events')).toEqual({ default: 100, max: 1000 });
    for (const field of [
      'Query.tensions',
      'Query.actors',
      'Query.users',
      'Query.roles',
      'Query.auditLog',
      'Query.tensionHistory',
      'Query.myApiKeys',
      'Query.userApiKeys',
    ]) {
      expect(bounds.get(field), field).toEqual({ default: 20, max: 100 });
    }
  });
});

describe('list items of a document', () => {
  // A toy schema with lists inside lists, which the service's own schema does not (yet) have.
  const toy = buildSchema(`
    type Query { shelves(limit: Int): ShelfPage!  health: String }
    type ShelfPage { data: [Shelf!]! }
    type Shelf { books(limit: Int): BookPage!  tags: [String!]! }
    type BookPage { data: [Book!]! }
    type Book { title: String }
  `);
  const bounds = new Map([
    ['Query.shelves', { default: 10, max: 50 }],
    ['Shelf.books', { default: 5, max: 20 }],
  ]);
  const items = (doc: string, variables?: Record<string, unknown>, operationName?: string) => listItems(toy, bounds, parse(doc), operationName, variables);

  it('multiplies limits through nesting and adds each level', () => {
    expect(items('{ shelves(limit: 50) { data { books(limit: 20) { data { title } } } } }')).toBe(50 + 50 * 20);
    expect(items('{ shelves { data { books { data { title } } } } }')).toBe(10 + 10 * 5);
    // lists without a limit (tags) ride on their item
    expect(items('{ shelves { data { tags } } health }')).toBe(10);
  });

  it('sums aliases and fragments, and counts a response key once as execution does', () => {
    expect(items('{ a: shelves(limit: 50) { data { title: __typename } } b: shelves(limit: 50) { data { __typename } } }')).toBe(100);
    expect(items('{ ...F ...F shelves(limit: 50) { data { __typename } } } fragment F on Query { shelves(limit: 50) { data { __typename } } }')).toBe(50);
    expect(
      items(
        '{ ...F x: shelves { data { __typename } } } fragment F on Query { y: shelves(limit: 50) { data { ...G } } } fragment G on Shelf { books(limit: 20) { data { title } } }',
      ),
    ).toBe(10 + 50 + 50 * 20);
    expect(items('{ ... on Query { a: shelves(limit: 7) { data { __typename } } } }')).toBe(7);
  });

  it('resolves variables, their defaults and @skip/@include; picks the named operation', () => {
    expect(items('query($n: Int) { shelves(limit: $n) { data { __typename } } }', { n: 3 })).toBe(3);
    expect(items('query($n: Int = 4) { shelves(limit: $n) { data { __typename } } }')).toBe(4);
    expect(items('query($n: Int) { shelves(limit: $n) { data { __typename } } }', {})).toBe(10);
    expect(items('query($s: Boolean!) { shelves(limit: 50) @skip(if: $s) { data { __typename } } }', { s: true })).toBe(0);
    expect(items('query($i: Boolean!) { shelves(limit: 50) @include(if: $i) { data { __typename } } }', { i: true })).toBe(50);
    expect(items('query A { shelves(limit: 1) { data { __typename } } } query B { shelves(limit: 2) { data { __typename } } }', {}, 'B')).toBe(2);
  });

  it('counts a limit the list would refuse (0, negative, over the maximum, null) at its default or maximum, never less', () => {
    expect(items('{ shelves(limit: 0) { data { __typename } } }')).toBe(50);
    expect(items('{ shelves(limit: -1) { data { __typename } } }')).toBe(50);
    expect(items('{ shelves(limit: 51) { data { __typename } } }')).toBe(50);
    expect(items('{ shelves(limit: 2147483647) { data { __typename } } }')).toBe(50);
    expect(items('{ shelves(limit: null) { data { __typename } } }')).toBe(10);
    expect(items('{ shelves(limit: 1) { data { __typename } } }')).toBe(1);
  });

  it('leaves to execution what cannot run: an unknown operation name, variables that do not coerce', () => {
    expect(items('query A { health }', {}, 'Nope')).toBeNull();
    expect(items('query($n: Int!) { shelves(limit: $n) { data { __typename } } }', { n: 'many' })).toBeNull();
  });
});
