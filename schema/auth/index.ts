// The auth area: its types and login/logout; `me` and `changePassword` are generated from the me registry (schema/operations.ts).
import './auth.type.js';
import './auth.mutations.js';
import './second-factor.js';
