// The roles area: its types; its queries and mutations are generated from its registry (schema/operations.ts).
import './roles.type.js';
