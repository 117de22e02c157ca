// The tensions application API: what REST, GraphQL, MCP and the CLI call.
export {
  senseTension,
  renameTension,
  rescoreTension,
  reviseTensionContext,
  setTensionLead,
  reassignTension,
  resolveTension,
  dropTension,
  reopenTension,
  reviveTension,
  discardTension,
} from './tension.commands.js';
export { listTensions, getTension, getTensionHistory } from './tension.queries.js';
export { rebuildTensionProjection, type RebuildOptions } from './rebuild.js';
export * from './tension.inputs.js';
