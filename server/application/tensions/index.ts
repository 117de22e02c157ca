// The tensions application API: what REST, GraphQL, MCP and the CLI call.
export { runCommand } from './tension.commands.js';
export { TENSION_COMMANDS, allowedCommandsOf, type TensionCommandEntry } from './registry.js';
export { listTensions, getTension, getTensionHistory, countTensions } from './tension.queries.js';
export { rebuildTensionProjection } from './rebuild.js';
export { getTensionChanges } from './tension.past.js';
export * from './tension.inputs.js';
