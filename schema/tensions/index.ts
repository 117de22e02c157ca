// The tensions area: imports its type, query and mutation files.
import './tension.type.js';
import './tension.queries.js';
import './tension.mutations.js';
