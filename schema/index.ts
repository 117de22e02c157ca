// The GraphQL schema: every area registers its types on the builder, then it is built once.
import { builder } from './builder.js';
import './system/system.queries.js';
import './auth/index.js';
import './users/index.js';
import './roles/index.js';
import './actors/index.js';
import './tensions/index.js';
import './events/index.js';
import './audit/index.js';
import './webhooks/index.js';
import './dashboard/index.js';
import './operations.js';

export const schema = builder.toSchema({ sortSchema: true });
