// The roles area: imports its type, query and mutation files.
import './roles.type.js';
import './roles.queries.js';
import './roles.mutations.js';
