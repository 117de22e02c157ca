// The actors area: imports its type, query and mutation files.
import './actor.type.js';
import './actor.queries.js';
import './actor.mutations.js';
