// The operator dashboard area: its types and queries.
import './dashboard.type.js';
import './dashboard.queries.js';
