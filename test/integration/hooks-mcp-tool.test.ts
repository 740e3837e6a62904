// `mcp_tool` hooks through `weft app-server` and a real MCP server (test/support/mcp-probe-server.mjs): the
// hook calls the server's `answer` tool with its configured input, the tool's text is read like a command
// hook's stdout JSON (a block keeps the command from running and the model reads the reason), and a tool
// that answers with isError is a hook error shown to the user, never a block.
import { join, resolve } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useHooksHarness } from '../support/hooks-harness';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';

const PROBE = resolve(__dirname, '../support/mcp-probe-server.mjs');
const h = useHooksHarness(
  [
    '[mcp_servers.probe]',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = [${JSON.stringify(PROBE)}]`,
    '',
  ].join('\n'),
);

interface Run {
  eventName: string;
  handlerType: string;
  status: string;
  entries: { kind: string; text: string }[];
  weftCommand: string;
  weftExitCode: number | null;
  weftOutput: string | null;
}

const mcpHook = (input: Record<string, unknown>) => ({
  type: 'mcp_tool',
  server: 'probe',
  tool: 'answer',
  input,
  timeout: 30,
});

/** The output the model was sent for `call_1`. */
function callOutput(requests: readonly { body: unknown }[]): unknown {
  for (const r of requests) {
    const input = (r.body as { input?: { type?: string; call_id?: string; output?: unknown }[] }).input ?? [];
    const found = input.find((i) => i.type === 'function_call_output' && i.call_id === 'call_1');
    if (found) return found.output;
  }
  return undefined;
}

describe('mcp_tool hooks', () => {
  it(
    'block a command with the reason the tool answered, and a tool error is a failed run, not a block',
    { timeout: 60_000 },
    async () => {
      const block = { decision: 'block', reason: 'no shell today' };
      await writeFile(
        join(h.home.dir, 'hooks.json'),
        JSON.stringify({
          hooks: {
            PreToolUse: [
              { matcher: 'Bash', hooks: [mcpHook({ text: JSON.stringify(block) })] },
              { matcher: 'Bash', hooks: [mcpHook({ text: 'the policy store is down', isError: true })] },
            ],
          },
        }),
      );
      const c = await h.client();
      const listed = await c.request<{ data: { hooks: Record<string, unknown>[]; errors: unknown[] }[] }>(
        'hooks/list',
        {
          cwds: [h.ws.dir],
        },
      );
      expect(listed.data[0]?.errors).toEqual([]);
      expect(
        listed.data[0]?.hooks.map((m) => [m['handlerType'], m['command'], m['weftMcpTool'], m['trustStatus']]),
      ).toEqual([
        ['mcpTool', null, { server: 'probe', tool: 'answer', input: { text: JSON.stringify(block) } }, 'untrusted'],
        [
          'mcpTool',
          null,
          { server: 'probe', tool: 'answer', input: { text: 'the policy store is down', isError: true } },
          'untrusted',
        ],
      ]);
      await h.trustAll(c);
      h.server.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_1', 'exec_command', { cmd: 'touch ran-anyway' }), evCompleted()],
        },
        answerTurn('DONE'),
      ]);
      const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
      await c.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'RUN', text_elements: [] }] });
      await c.notification('turn/completed', (p) => p['threadId'] === thread.id);
      const runs = c.notifications('hook/completed').map((p) => p['run'] as Run);
      const label = (input: Record<string, unknown>) => `mcp_tool probe/answer ${JSON.stringify(input)}`;
      expect(
        runs.map((r) => ({
          eventName: r.eventName,
          handlerType: r.handlerType,
          status: r.status,
          entries: r.entries,
          weftCommand: r.weftCommand,
          weftExitCode: r.weftExitCode,
        })),
      ).toEqual([
        {
          eventName: 'preToolUse',
          handlerType: 'mcpTool',
          status: 'blocked',
          entries: [{ kind: 'feedback', text: 'no shell today' }],
          weftCommand: label({ text: JSON.stringify(block) }),
          weftExitCode: null,
        },
        {
          eventName: 'preToolUse',
          handlerType: 'mcpTool',
          status: 'failed',
          entries: [{ kind: 'error', text: "the hook's MCP tool answered with an error: the policy store is down" }],
          weftCommand: label({ text: 'the policy store is down', isError: true }),
          weftExitCode: null,
        },
      ]);
      expect(callOutput(h.server.requests)).toBe(
        'Command blocked by PreToolUse hook: no shell today. Command: touch ran-anyway',
      );
      await expect(import('node:fs/promises').then((fs) => fs.access(join(h.ws.dir, 'ran-anyway')))).rejects.toThrow();
    },
  );

  it('fail, never block, when the server is not configured', { timeout: 60_000 }, async () => {
    await writeFile(
      join(h.home.dir, 'hooks.json'),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ ...mcpHook({ text: '{"decision":"block"}' }), server: 'nowhere' }] }] },
      }),
    );
    const c = await h.client();
    await h.trustAll(c);
    h.server.enqueue(answerTurn('ACK'));
    const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
    await c.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello', text_elements: [] }] });
    const ended = await c.notification('turn/completed', (p) => p['threadId'] === thread.id);
    expect((ended['turn'] as { status: string }).status).toBe('completed');
    const runs = c.notifications('hook/completed').map((p) => p['run'] as Run);
    expect(runs.map((r) => [r.status, r.entries])).toEqual([
      [
        'failed',
        [
          {
            kind: 'error',
            text: `the hook's MCP call failed: no MCP server "nowhere" is configured; add [mcp_servers.nowhere] to config.toml`,
          },
        ],
      ],
    ]);
  });
});
