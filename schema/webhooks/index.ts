// The webhooks area: imports its type, query and mutation files.
import './webhooks.type.js';
import './webhooks.queries.js';
import './webhooks.mutations.js';
