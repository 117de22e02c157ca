// Subcommands contributed by the areas, loaded only when run: `start` must not pay for their imports.
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export type CommandRun = (args: string[], env: { config: Config; logger: Logger }) => Promise<number>;

export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  load(): Promise<CommandRun>;
}

export const commands: CliCommand[] = [
  {
    name: 'projections',
    usage: 'projections rebuild [--dry-run]',
    summary: 'rebuild the tensions projection from the event streams',
    load: async () => (await import('./projections.command.js')).runProjections,
  },
  {
    name: 'users',
    usage: 'users create-admin --email E [--name N]',
    summary: 'create a human admin (password from ADMIN_PASSWORD, or generated and printed once)',
    load: async () => (await import('./users.command.js')).runUsers,
  },
  {
    name: 'mcp',
    usage: 'mcp',
    summary: 'serve the MCP tools over stdio (key from MARKET_API_KEY)',
    load: async () => (await import('../mcp/stdio.js')).runMcp,
  },
  {
    name: 'relay',
    usage: 'relay nats',
    summary: 'relay every event to NATS JetStream (NATS_URL, NATS_SUBJECT_PREFIX, NATS_STREAM); one active per database',
    load: async () => (await import('./relay.command.js')).runRelay,
  },
  {
    name: 'export',
    usage: 'export [--out FILE]',
    summary: 'write a portable NDJSON dump (users, keys, roles, actors, every event) to FILE or stdout',
    load: async () => (await import('./dump.command.js')).runExport,
  },
  {
    name: 'import',
    usage: 'import FILE',
    summary: 'load a dump into an empty database and rebuild the projection',
    load: async () => (await import('./dump.command.js')).runImport,
  },
];
