// The users area: its types; its queries and mutations are generated from the users and me registries (schema/operations.ts).
import './users.type.js';
