// SPEC §7: a GraphQL operation whose lists could return more than LIST_ITEMS_PER_REQUEST items in all is
// refused before anything runs (400, TOO_COSTLY). graphql-armor's cost limit does not fit: it reads only
// literal `first`/`last` arguments (not `limit`, not variables) and weighs fields rather than counting items.
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isInterfaceType,
  isObjectType,
  Kind,
  visit,
  BREAK,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { itemsAsked, LIST_ITEMS_PER_REQUEST, limitBounds, type LimitBounds } from '../application/budgets.js';
import type { z } from 'zod';
import { graphqlError } from '../../schema/errors.js';

/**
 * Every field that takes a `limit`, by coordinate (`Query.events`), with the bounds its use case applies.
 * A list field whose bounds no schema declares fails here, at start, rather than escaping the budget.
 */
export function listBounds(schema: GraphQLSchema): Map<string, LimitBounds> {
  const bounds = new Map<string, LimitBounds>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.args.some((a) => a.name === 'limit')) continue;
      // declared with the field (schema/described.ts, listLimit)
      const limit = (field.extensions as { limit?: z.ZodType }).limit;
      if (!limit) throw new Error(`${type.name}.${field.name} takes a limit, but its declaration names no zod schema with its default and maximum (listLimit)`);
      bounds.set(`${type.name}.${field.name}`, limitBounds(limit));
    }
  }
  return bounds;
}

type Variables = Record<string, unknown>;

interface Walk {
  schema: GraphQLSchema;
  bounds: Map<string, LimitBounds>;
  variables: Variables;
  fragments: Map<string, FragmentDefinitionNode>;
}

function included(node: FieldNode | { directives?: FieldNode['directives'] }, variables: Variables): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, node, variables);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, variables);
  return include?.if !== false;
}

/** The fields of selection sets as execution merges them: by parent type and response key, fragments flattened once. */
function collect(
  w: Walk,
  sets: readonly SelectionSetNode[],
  parent: GraphQLNamedType,
  into = new Map<string, { type: GraphQLNamedType; nodes: FieldNode[] }>(),
  visited = new Set<string>(),
) {
  for (const set of sets) {
    for (const s of set.selections) {
      if (!included(s, w.variables)) continue;
      if (s.kind === Kind.FIELD) {
        const key = `${parent.name}.${s.alias?.value ?? s.name.value}`;
        const group = into.get(key) ?? { type: parent, nodes: [] };
        group.nodes.push(s);
        into.set(key, group);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        collect(w, [s.selectionSet], (s.typeCondition && w.schema.getType(s.typeCondition.name.value)) || parent, into, visited);
      } else if (!visited.has(s.name.value)) {
        visited.add(s.name.value);
        const fragment = w.fragments.get(s.name.value);
        const type = fragment && w.schema.getType(fragment.typeCondition.name.value);
        if (fragment && type) collect(w, [fragment.selectionSet], type, into, visited);
      }
    }
  }
  return into;
}

/** The items the lists under `sets` could return, each `multiplier` times; stops counting once over `budget`. */
function itemsUnder(w: Walk, sets: readonly SelectionSetNode[], parent: GraphQLNamedType, multiplier: number, budget: number): number {
  let total = 0;
  for (const { type, nodes } of collect(w, sets, parent).values()) {
    if (total > budget) break;
    if (!(isObjectType(type) || isInterfaceType(type))) continue;
    const field = type.getFields()[nodes[0].name.value];
    if (!field) continue;
    let times = multiplier;
    const bounds = w.bounds.get(`${type.name}.${field.name}`);
    if (bounds) {
      let given: unknown;
      try {
        given = getArgumentValues(field, nodes[0], w.variables).limit;
      } catch {
        given = Number.NaN; // refused by execution; counted at the list's maximum meanwhile
      }
      times = multiplier * itemsAsked(bounds, given);
      total += times;
    }
    const subsets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    if (subsets.length) total += itemsUnder(w, subsets, getNamedType(field.type), times, budget - total);
  }
  return total;
}

/**
 * The list items an operation could return, or null when it cannot run as sent (no such operation, variables
 * that do not coerce): execution then refuses it without running anything, with its own error.
 */
export function listItems(
  schema: GraphQLSchema,
  bounds: Map<string, LimitBounds>,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: unknown,
): number | null {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], (rawVariables ?? {}) as Variables);
  if (coerced.errors) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return itemsUnder({ schema, bounds, variables: coerced.coerced, fragments }, [operation.selectionSet], root, 1, LIST_ITEMS_PER_REQUEST);
}

interface ExecuteHook {
  args: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null; variableValues?: unknown };
  setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void;
}

/** The yoga plugin: counted on the parsed, validated document with its variables, before execution or a subscription starts. */
export function useListBudget(schema: GraphQLSchema) {
  const bounds = listBounds(schema);
  const listFields = new Set([...bounds.keys()].map((coordinate) => coordinate.slice(coordinate.indexOf('.') + 1)));
  // A document that names no list field asks for no items whatever its variables: known once per parsed
  // document (yoga keeps parsed documents), so a mutation such as rescoreTension skips coercing its
  // variables and walking its selections on every request (issue 37).
  const listFree = new WeakMap<DocumentNode, boolean>();
  const namesNoList = (document: DocumentNode) => {
    let free = listFree.get(document);
    if (free === undefined) {
      free = true;
      visit(document, {
        Field(node) {
          if (!listFields.has(node.name.value)) return undefined;
          free = false;
          return BREAK;
        },
      });
      listFree.set(document, free);
    }
    return free;
  };
  const check = ({ args, setResultAndStopExecution }: ExecuteHook) => {
    if (namesNoList(args.document)) return;
    const items = listItems(args.schema, bounds, args.document, args.operationName, args.variableValues);
    if (items === null || items <= LIST_ITEMS_PER_REQUEST) return;
    setResultAndStopExecution({
      errors: [
        graphqlError(
          'TOO_COSTLY',
          `This operation asks for more than ${LIST_ITEMS_PER_REQUEST} list items in all (each list's limit, times the lists around it). Ask for smaller pages or fewer lists, and follow nextCursor.`,
          { maxItems: LIST_ITEMS_PER_REQUEST, http: { status: 400 } },
        ),
      ],
    });
  };
  return { onExecute: check, onSubscribe: check };
}
