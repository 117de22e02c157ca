// The actors area: imports its type; its queries and mutations come from the operation registry
// (server/application/actors/actors.operations.ts, served by schema/operations.ts).
import './actor.type.js';
