// The audit trail area: imports its types; its queries come from the operation registry
// (server/application/audit/audit.operations.ts, served by schema/operations.ts).
import './audit.type.js';
