// The tool registry: every MCP tool, over HTTP and stdio alike. The tools of the operation registry's areas
// (whoami, the actors', list_events) are generated from it (operations.tools.ts), by each entry's `mcp` line.
import type { ToolDef } from './tool.js';
import { OPERATION_TOOLS } from './operations.tools.js';
import { TENSION_TOOLS } from './tension.tools.js';
import { USER_TOOLS } from './users.tools.js';

export const TOOLS: ToolDef[] = [...OPERATION_TOOLS, ...TENSION_TOOLS, ...USER_TOOLS];
