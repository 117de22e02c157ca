// The closed sets of the API as GraphQL enums. Their values are the very words REST and MCP use
// (`alive`, `human`, `TensionRescored`), so a client reads one vocabulary on every face; only the tension
// sort, whose REST form (`-score`) is not a GraphQL name, is spelled `score_desc` here.
import { builder } from './builder.js';
import { TENSION_EVENT_TYPES } from '../server/domain/tension.types.js';
import { COMMAND_VERB } from '../server/domain/tension.decide.js';
import { ACTOR_TYPES } from '../server/application/actors/actor.inputs.js';
import { TENSION_SORTS } from '../server/application/tensions/tension.inputs.js';

type Values = Record<string, { description: string; value?: string }>;

/**
 * Every enum below by its set of (internal) values, so a zod enum in an input (`z.enum(['human', 'agent'])`)
 * becomes the GraphQL enum with exactly those values (schema/zod-input.ts). Two enums with one set would
 * make that ambiguous: registering the second throws.
 */
const BY_VALUES = new Map<string, ReturnType<typeof builder.enumType>>();
const valuesKey = (values: readonly string[]) => JSON.stringify([...values].sort());

function closedSet(name: string, options: { description: string; values: Values }) {
  const ref = builder.enumType(name, options);
  const key = valuesKey(Object.entries(options.values).map(([n, v]) => v.value ?? n));
  if (BY_VALUES.has(key)) throw new Error(`GraphQL enum ${name} has the same values as another enum`);
  BY_VALUES.set(key, ref);
  return ref;
}

/** The GraphQL enum whose values are exactly these, if one is declared here. */
export function enumOfValues(values: readonly string[]) {
  return BY_VALUES.get(valuesKey(values));
}

const values = (described: Record<string, string>): Values =>
  Object.fromEntries(Object.entries(described).map(([name, description]) => [name, { description }]));

export const TensionStateEnum = closedSet('TensionState', {
  description: 'Where a tension is in its lifecycle (SPEC §3).',
  values: values({
    alive: 'The gap is open and being worked on.',
    resolved: 'The desired future was reached; reopen brings it back to alive.',
    stale: 'Dropped without being resolved; revive brings it back to alive.',
  }),
});

/** The sorts that are not a column's lowest or highest first (issue 36). */
const SORT_DESCRIPTIONS: Partial<Record<(typeof TENSION_SORTS)[number], string>> = {
  state: 'state: alive, resolved, stale; within a state the highest score first',
  '-state': 'state: stale, resolved, alive; within a state the highest score first',
  actor: "the actor's name A-Z (case-insensitive), then the actor's id",
  '-actor': "the actor's name Z-A (case-insensitive), then the actor's id",
  lead: "the lead's name A-Z (case-insensitive), then the lead's id; tensions without a lead last",
  '-lead': "the lead's name Z-A (case-insensitive), then the lead's id; tensions without a lead last",
};

export const TensionSortEnum = closedSet('TensionSort', {
  description: 'The order of a tension list: a column ascending, or with `_desc` descending (REST writes `-score`). Default `score_desc`.',
  values: Object.fromEntries(
    TENSION_SORTS.map((sort) => {
      const column = sort.replace(/^-/, '');
      const desc = sort.startsWith('-');
      return [
        desc ? `${column}_desc` : column,
        { value: sort, description: SORT_DESCRIPTIONS[sort] ?? `${column}, ${desc ? 'highest or latest' : 'lowest or earliest'} first` },
      ];
    }),
  ),
});

export const ActorTypeEnum = closedSet('ActorType', {
  description: 'What kind of market participant an actor is.',
  values: values({
    organization: 'A company, association or public body.',
    individual: 'A person acting on their own account.',
    virtual: 'A stand-in for a group or a role that is no legal person.',
    agent: 'A software agent; agent users can be linked to it.',
  } satisfies Record<(typeof ACTOR_TYPES)[number], string>),
});

export const UserTypeEnum = closedSet('UserType', {
  description: 'How a user authenticates: fixed at creation.',
  values: values({
    human: 'Signs in with email and password (admin web session) and may create its own API keys.',
    agent: 'Has no password and never a session; uses API keys an administrator provisions.',
  }),
});

export const UserStatusEnum = closedSet('UserStatus', {
  description: 'Whether a user may authenticate.',
  values: values({
    active: 'May sign in or use its keys.',
    deactivated: 'Refused everywhere; its sessions and keys were revoked. Reactivation makes it active again (no keys come back).',
  }),
});

export const CallerKindEnum = closedSet('CallerKind', {
  description: 'Who acted: a human user, an agent user, or the system (the command-line interface).',
  values: values({ human: 'A human user.', agent: 'An agent user.', system: 'The service itself, run from its command-line interface.' }),
});

export const ViaEnum = closedSet('Via', {
  description: 'The face a change came through.',
  values: values({ graphql: 'The GraphQL API (and the admin web app).', rest: 'The REST API.', mcp: 'The MCP server.', cli: 'The command-line interface.' }),
});

export const AuthenticatedByEnum = closedSet('AuthenticatedBy', {
  description: 'How the caller of this request authenticated.',
  values: values({
    session: 'A password session (the admin web app cookie).',
    api_key: 'An API key (`Authorization: Bearer`).',
    oauth: 'An OAuth access token a person granted an AI client (MCP only).',
  }),
});

export const TensionEventTypeEnum = closedSet('TensionEventType', {
  description: 'The type of an event in a tension stream (past tense: what happened).',
  values: values(Object.fromEntries(TENSION_EVENT_TYPES.map((type) => [type, `A \`${type}\` event (SPEC §3).`]))),
});

export const TensionCommandEnum = closedSet('TensionCommand', {
  description: 'A tension command by its verb, as REST names its path.',
  values: values(Object.fromEntries(Object.entries(COMMAND_VERB).map(([command, verb]) => [verb, `The ${command} command.`]))),
});
