// The webhooks area: its object types; the queries and mutations come from its registry (schema/operations.ts).
import './webhooks.type.js';
