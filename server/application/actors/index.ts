// The actors application API: what REST, GraphQL and MCP call.
export { listActors, getActor, createActor, updateActor, deleteActor } from './actors.js';
export * from './actor.inputs.js';
