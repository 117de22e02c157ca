// The OpenAPI document's named schemas (components.schemas) and the one zod → JSON Schema conversion that
// refers to them with `$ref`. The names live in an explicit registry here rather than `.meta({ id })` on
// the schemas: the MCP face converts the same schemas and must keep them inline (a tool's outputSchema is
// an object, not a `$ref`), so only this document sees the names.
import { z } from 'zod';
import { FIELD_ERROR_CODES, REFUSAL_CODES } from '../domain/errors.js';
import {
  commandResultOutput,
  historyEntryOutput,
  historyPageOutput,
  senseResultOutput,
  tensionOutput,
  tensionPageOutput,
  TENSION_STATES,
} from '../application/tensions/tension.inputs.js';
import { actorOutput, actorPageOutput } from '../application/actors/actor.inputs.js';
import { userOutput } from '../application/users/user.read.js';
import { roleOutput } from '../application/roles/role.read.js';
import { apiKeyOutput, createdApiKeyOutput } from '../application/users/api-keys.js';
import { meOutput } from '../application/auth/auth.js';
import { feedEventOutput, feedPageOutput } from '../application/events/events.js';
import { apiKeyPageOutput, userPageOutput } from '../application/users/users.operations.js';

import { permissionListOutput, rolePageOutput } from '../application/roles/roles.operations.js';

export { apiKeyPageOutput, permissionListOutput, rolePageOutput, userPageOutput };
import { auditEntryOutput } from '../application/audit/audit.js';
import { auditPageOutput } from '../application/audit/audit.operations.js';

const fieldError = z.object({
  path: z.string().describe('Where in the input, dot-separated (`name`, `roleIds.2`); `(root)` for the input as a whole.'),
  message: z.string().describe('What is wrong, in English.'),
  code: z
    .enum(FIELD_ERROR_CODES)
    .describe(
      'Stable and machine-readable, on every item: what is wrong, to show the message in your own language. `required`, `too_short`/`too_long` (text, `min`/`max` characters), ' +
        '`too_small`/`too_big` (numbers, lists, instants: `min`/`max`), `invalid_type` (`expected`), `invalid_format` (`format`: `email`, `uuid`, `datetime`, `cursor`, ' +
        '`text` for a string holding NUL or an unpaired surrogate, …), `invalid_value` (`values` when the allowed ones are few), `unknown_field` (`keys`), `not_found` (`ids` that name nothing), ' +
        '`not_held` (`permissions` the user lacks), `immutable` (fixed at creation), `incorrect` (a current password that does not match).',
    ),
  params: z.record(z.string(), z.unknown()).describe('The figures of `code`, e.g. `{"max": 200}` for too_long; `{}` when it has none.'),
});

/** RFC 9457 problem document with every extension member a refusal may carry (SPEC §7). */
const problem = z
  .looseObject({
    type: z.string().describe('`urn:market-service:problem:<code>`.'),
    title: z.string().describe('A short summary of the kind of problem, the same for every occurrence of `code`.'),
    status: z.number().int().describe('The HTTP status, repeated.'),
    code: z.enum(REFUSAL_CODES).describe('Stable, machine-readable: what went wrong. Branch on this, not on `title` or `detail`.'),
    detail: z.string().optional().describe('A plain sentence for a person about this occurrence.'),
    requestId: z.string().describe('The request id (also the `X-Request-Id` header): quote it when reporting a problem.'),
    errors: z.array(fieldError).optional().describe('validation_failed: one item per problem in the input.'),
    currentVersion: z.number().int().optional().describe('version_conflict: the version the tension is at now.'),
    expectedVersion: z.number().int().optional().describe('version_conflict: the expectedVersion you sent (absent when you sent none).'),
    missingPermission: z.string().optional().describe('forbidden: the permission the operation needs and you lack.'),
    missingPermissions: z.array(z.string()).optional().describe('escalation_denied: the permissions you would grant without holding them yourself.'),
    state: z.enum(TENSION_STATES).optional().describe('invalid_transition: the state the tension is in.'),
    command: z.string().optional().describe('invalid_transition: the move that this state does not allow (`resolve`, `revive`, …).'),
    retryAfterSeconds: z
      .number()
      .int()
      .optional()
      .describe('rate_limited (the login throttle and the per-key or per-client request limit): seconds to wait; also in the `Retry-After` header.'),
  })
  .describe('A refusal: an RFC 9457 problem document with a stable `code`.');

/** The named schemas, by component name. Their order is the document's. */
const NAMED = {
  Tension: tensionOutput,
  HistoryEntry: historyEntryOutput,
  CommandResult: commandResultOutput,
  SenseResult: senseResultOutput,
  TensionPage: tensionPageOutput,
  HistoryPage: historyPageOutput,
  Actor: actorOutput,
  ActorPage: actorPageOutput,
  User: userOutput,
  UserPage: userPageOutput,
  Role: roleOutput,
  RolePage: rolePageOutput,
  PermissionList: permissionListOutput,
  ApiKey: apiKeyOutput,
  CreatedApiKey: createdApiKeyOutput,
  ApiKeyPage: apiKeyPageOutput,
  Me: meOutput,
  Event: feedEventOutput,
  EventPage: feedPageOutput,
  AuditEntry: auditEntryOutput,
  AuditPage: auditPageOutput,
  Problem: problem,
  FieldError: fieldError,
} satisfies Record<string, z.ZodType>;
type ComponentName = keyof typeof NAMED;
const isComponentName = (name: string): name is ComponentName => Object.hasOwn(NAMED, name);

const NAMES = new Map<z.ZodType, string>(Object.entries(NAMED).map(([name, schema]): [z.ZodType, string] => [schema, name]));

/** The descriptions (global registry, where `.describe()` writes) plus the component names of this document. */
const metadata = {
  get(schema: z.ZodType) {
    const meta = z.globalRegistry.get(schema);
    const id = NAMES.get(schema);
    return id ? { ...meta, id } : meta;
  },
} as unknown as z.core.$ZodRegistry<z.core.GlobalMeta>;

type Json = Record<string, unknown>;

/** `.int()` states JavaScript's safe-integer range, which says nothing to a reader or a generator: left out. */
function withoutSafeIntegerBounds({ jsonSchema }: { jsonSchema: Json }): void {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

const rewriteRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : rewriteRefs(v)]),
  );
};

/** Collects the named schemas as conversions meet them; one per document. */
export class Components {
  readonly schemas: Record<string, Json> = {};

  /** `schema` as JSON Schema, every named schema in it replaced by a `$ref` to components.schemas. */
  schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
    const {
      $schema: _,
      $defs,
      ...json
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any', metadata, override: withoutSafeIntegerBounds }) as Json & {
      $defs?: Record<string, Json>;
    };
    for (const [name, def] of Object.entries($defs ?? {})) {
      // only named schemas may be shared: zod names anything else (a cycle) `__schemaN`, unique per conversion only
      if (!isComponentName(name)) throw new Error(`OpenAPI: unnamed shared schema ${name}; name it in openapi.components.ts`);
      const converted = rewriteRefs(def) as Json;
      const known = this.schemas[name];
      if (known && JSON.stringify(known) !== JSON.stringify(converted)) {
        throw new Error(`OpenAPI: component ${name} converts differently as ${io}; give the input its own schema`);
      }
      this.schemas[name] = converted;
    }
    return rewriteRefs(json) as Json;
  }

  /** A `$ref` to a named schema (converted as output). */
  ref(name: ComponentName): Json {
    this.schemaOf(NAMED[name], 'output');
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The collected schemas in the registry's order. */
  ordered(): Record<string, Json> {
    return Object.fromEntries(
      Object.keys(NAMED)
        .filter((n) => n in this.schemas)
        .map((n) => [n, this.schemas[n]]),
    );
  }
}
