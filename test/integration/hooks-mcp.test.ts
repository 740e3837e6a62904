// PreToolUse / PostToolUse hooks on MCP tools, through the real `weft` binary and a real MCP server
// (@modelcontextprotocol/server-everything): matchers see Codex's `mcp__<server>__<tool>` names, the payloads
// have the keys and shapes Codex 0.169 writes for the same call (test/fixtures/codex-hooks-0.169/mcp.json),
// and a hook that exits 2 keeps the call from reaching the server, the model reading Codex's words.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapeOf } from '../support/codex-exec-fixtures';
import { useHooksHarness } from '../support/hooks-harness';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const FIXTURES = resolve(__dirname, '../fixtures/codex-hooks-0.169');
const h = useHooksHarness(
  [
    '[mcp_servers.everything]',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`,
    '',
  ].join('\n'),
);

interface CodexMcp {
  allowed: { payloads: Record<string, unknown>[]; hookLines: string[] };
  blocked: { hookLines: string[]; modelInputs: { type?: string; output?: unknown }[][] };
}

const echo = (message: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evNamespacedCall('call_1', 'mcp__everything', 'echo', { message }), evCompleted()],
});

function hookLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('hook: '));
}

/** The output the model was sent for `call_1`. */
function callOutput(requests: readonly { body: unknown }[]): unknown {
  for (const r of requests) {
    const input = (r.body as { input?: { type?: string; call_id?: string; output?: unknown }[] }).input ?? [];
    const found = input.find((i) => i.type === 'function_call_output' && i.call_id === 'call_1');
    if (found) return found.output;
  }
  return undefined;
}

describe('hooks on MCP tools', () => {
  it('match the tool by its mcp__server__tool name and get Codex’s payloads', { timeout: 60_000 }, async () => {
    await h.writeHooks([
      { event: 'PreToolUse', matcher: 'mcp__everything__.*' },
      { event: 'PostToolUse', matcher: 'mcp__.*' },
      { event: 'PreToolUse', matcher: 'Bash' },
    ]);
    h.server.enqueueMany([echo('hi'), answerTurn('DONE: Echo: hi')]);
    const run = await h.weft(['exec', '--dangerously-bypass-hook-trust', 'MCP everything echo {"message":"hi"}']);
    expect(run.code).toBe(0);
    const codex = JSON.parse(await readFile(join(FIXTURES, 'mcp.json'), 'utf8')) as CodexMcp;
    expect(hookLines(run.stderr)).toEqual(codex.allowed.hookLines);
    const runs = await h.hooks.runs();
    expect(runs.map((r) => r.event)).toEqual(['PreToolUse', 'PostToolUse']);
    for (const [i, { payload }] of runs.entries()) {
      const theirs = codex.allowed.payloads[i] ?? {};
      expect(Object.keys(payload)).toEqual(Object.keys(theirs));
      expect(shapeOf(payload)).toEqual(shapeOf(theirs));
      expect(payload['tool_name']).toBe('mcp__everything__echo');
      expect(payload['tool_name']).toBe(theirs['tool_name']);
      expect(payload['tool_input']).toEqual(theirs['tool_input']);
      expect(payload['tool_use_id']).toBe('call_1');
    }
    expect(runs[1]?.payload['tool_response']).toEqual(codex.allowed.payloads[1]?.['tool_response']);
  });

  it(
    'a PreToolUse hook that exits 2 keeps the call from the server; the model reads Codex’s words',
    { timeout: 60_000 },
    async () => {
      await h.writeHooks([{ event: 'PreToolUse', matcher: 'mcp__everything__echo', mode: 'block:blocked' }]);
      h.server.enqueueMany([echo('blocked'), answerTurn('DONE: blocked')]);
      const run = await h.weft(['exec', '--dangerously-bypass-hook-trust', 'MCP everything echo']);
      expect(run.code).toBe(0);
      const codex = JSON.parse(await readFile(join(FIXTURES, 'mcp.json'), 'utf8')) as CodexMcp;
      const theirs = codex.blocked.modelInputs.flat().find((i) => i.type === 'function_call_output')?.output;
      expect(theirs).toBe(
        'Tool call blocked by PreToolUse hook: mcp calls are not allowed. Tool: mcp__everything__echo',
      );
      expect(callOutput(h.server.requests)).toBe(
        'Tool call blocked by PreToolUse hook: commands that mention blocked are not allowed. Tool: mcp__everything__echo',
      );
      expect(hookLines(run.stderr)).toEqual(codex.blocked.hookLines);
    },
  );
});
