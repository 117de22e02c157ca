// The users area: imports its type, query and mutation files.
import './users.type.js';
import './users.queries.js';
import './users.mutations.js';
