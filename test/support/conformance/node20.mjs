// Lets the MCP conformance CLI (built for Node 22) start on Node 20: it imports `globSync` from `fs`,
// which Node 20 lacks, for its SDK-repository checks only; the server scenarios never call it.
import { register } from 'node:module';

register('./node20-hooks.mjs', import.meta.url);
