// The event feed area: imports its types, queries and subscription.
import './events.type.js';
import './events.queries.js';
