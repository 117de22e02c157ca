// Subcommands contributed by the areas (projections rebuild, users create-admin, mcp).
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { projectionsCommand } from './projections.command.js';
import { usersCommand } from './users.command.js';
import { mcpCommand } from '../mcp/stdio.js';

export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  run(args: string[], env: { config: Config; logger: Logger }): Promise<number>;
}

export const commands: CliCommand[] = [projectionsCommand, usersCommand, mcpCommand];
