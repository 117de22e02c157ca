// The audit trail area: imports its types and query.
import './audit.type.js';
import './audit.queries.js';
