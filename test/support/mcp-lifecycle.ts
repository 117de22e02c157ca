// A full tension lifecycle driven through MCP tools, shared by the HTTP and stdio tests.
import { expect } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { commandResultOutput, historyPageOutput, type CommandResult, type HistoryEntry } from '../../server/application/tensions/tension.inputs.js';

/** What the lifecycle needs of a client: the 1.x SDK's and the 2.x SDK's both have it. */
export interface Client {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

export interface LifecycleIds {
  actorA: string;
  actorB: string;
  leadUserId: string;
}

export interface LifecycleStep {
  tool: string;
  args: Record<string, unknown>;
  result: CommandResult;
}

export interface LifecycleOutcome {
  tensionId: string;
  /** every command call that changed something, in order (retries excluded) */
  steps: LifecycleStep[];
  /** the history page get_tension_history answered before the discard */
  history: HistoryEntry[];
  /** the result of discard_tension */
  discard: CommandResult;
}

export async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} failed: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
  // The text content mirrors the structured content, for clients that only read text.
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should have failed`).toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

/**
 * sense → rename → rescore → revise → set lead → reassign → resolve → reopen → drop → revive → history → discard.
 * Each command that the no-op rule makes safe to retry is sent twice: the retry must write nothing.
 * `afterStep` lets the caller compare each result with what REST shows.
 */
export async function runTensionLifecycle(
  client: Client,
  ids: LifecycleIds,
  afterStep: (step: LifecycleStep) => Promise<void> = async () => undefined,
): Promise<LifecycleOutcome> {
  const steps: LifecycleStep[] = [];
  const sensed = commandResultOutput.parse(
    await callOk(client, 'sense_tension', { name: 'Slow settlement', actorId: ids.actorA, currentContext: 'T+3', potentialFuture: 'T+1' }),
  );
  expect(sensed.tension).toMatchObject({ state: 'alive', version: 1, score: 5, actorId: ids.actorA, leadUserId: null });
  expect(sensed.event).toMatchObject({ version: 1, type: 'TensionSensed', by: { via: 'mcp', kind: 'agent' } });
  const id = sensed.tension!.id;
  const first: LifecycleStep = { tool: 'sense_tension', args: {}, result: sensed };
  steps.push(first);
  await afterStep(first);

  const script: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
    ['rename_tension', { name: 'Slow settlement of trades' }, 'TensionRenamed', { name: 'Slow settlement of trades' }],
    ['rescore_tension', { score: 8 }, 'TensionRescored', { score: 8 }],
    ['revise_tension_context', { potentialFuture: 'T+0' }, 'TensionContextRevised', { potentialFuture: 'T+0', currentContext: 'T+3' }],
    ['set_tension_lead', { leadUserId: ids.leadUserId }, 'TensionLeadAssigned', { leadUserId: ids.leadUserId }],
    ['reassign_tension', { actorId: ids.actorB }, 'TensionReassigned', { actorId: ids.actorB, actor: expect.objectContaining({ id: ids.actorB }) }],
    ['resolve_tension', {}, 'TensionResolved', { state: 'resolved' }],
    ['reopen_tension', {}, 'TensionReopened', { state: 'alive' }],
    ['drop_tension', {}, 'TensionDropped', { state: 'stale' }],
    ['revive_tension', {}, 'TensionRevived', { state: 'alive' }],
  ];
  let version = 1;
  for (const [tool, body, type, expected] of script) {
    const result = commandResultOutput.parse(await callOk(client, tool, { id, ...body, expectedVersion: version }));
    version += 1;
    expect(result.event, tool).toMatchObject({ version, type, by: { via: 'mcp' } });
    expect(result.tension, tool).toMatchObject({ id, version, ...expected });
    const step = { tool, args: body, result };
    steps.push(step);
    await afterStep(step);
    // The retry (no expectedVersion, as a client that lost the answer would send it) changes nothing.
    const retry = commandResultOutput.parse(await callOk(client, tool, { id, ...body }));
    expect(retry, `${tool} retried`).toEqual({ tension: result.tension, event: null });
  }

  const history = historyPageOutput.parse(await callOk(client, 'get_tension_history', { id, limit: 100 }));
  expect(history.nextCursor).toBeNull();
  expect(history.data.map((e) => e.version)).toEqual([...Array(version).keys()].map((i) => version - i));

  const discard = commandResultOutput.parse(await callOk(client, 'discard_tension', { id, expectedVersion: version }));
  expect(discard.event).toMatchObject({ version: version + 1, type: 'TensionDiscarded', by: { via: 'mcp' } });
  // Discard is not retry-safe: the tension is gone.
  expect(await callError(client, 'discard_tension', { id })).toMatchObject({ code: 'not_found' });
  expect(await callError(client, 'get_tension', { id })).toMatchObject({ code: 'not_found' });
  return { tensionId: id, steps, history: history.data, discard };
}
