// The auth area: imports its type, query and mutation files.
import './auth.type.js';
import './auth.queries.js';
import './auth.mutations.js';
import './second-factor.js';
