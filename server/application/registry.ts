// Every area's operation registry, in the order the faces list them (REST routes and the OpenAPI
// document's paths follow it). The tension commands have their own (tensions/registry.ts).
import type { OperationEntry } from './operations.js';
import { ME_OPERATIONS } from './users/me.operations.js';
import { USER_OPERATIONS } from './users/users.operations.js';
import { ROLE_OPERATIONS } from './roles/roles.operations.js';
import { CONNECTED_APP_OPERATIONS } from './oauth/connected-apps.operations.js';
import { SECOND_FACTOR_OPERATIONS } from './auth/second-factor.operations.js';
import { WEBHOOK_OPERATIONS } from './webhooks/webhooks.operations.js';
import { ACTOR_OPERATIONS } from './actors/actors.operations.js';
import { EVENT_OPERATIONS } from './events/events.operations.js';
import { AUDIT_OPERATIONS } from './audit/audit.operations.js';

export const OPERATIONS: readonly OperationEntry[] = [
  ...ME_OPERATIONS,
  ...USER_OPERATIONS,
  ...ROLE_OPERATIONS,
  ...CONNECTED_APP_OPERATIONS,
  ...SECOND_FACTOR_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...ACTOR_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...AUDIT_OPERATIONS,
];
