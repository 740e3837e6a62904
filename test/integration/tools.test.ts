import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThreadItem } from '../../src-preload/protocol';
import { paramsOf, startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evCompleted, evCreated, evCustomToolCall, evFunctionCall, answerTurn } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({
    'src/app.py': 'def greet():\n    print("Hi")\n\n\ndef main():\n    greet()\n',
    'old.txt': 'obsolete\n',
  });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
});

/** The temp workspace lives under /tmp, which workspace-write would otherwise make writable. */
const NO_TMP = { exclude_slash_tmp: true, exclude_tmpdir_env_var: true };

const calls = (...c: ReturnType<typeof evFunctionCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

const PATCH = `*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: old.txt
*** End Patch`;

function completedItems(events: AgentHarness['events']): ThreadItem[] {
  return paramsOf(events, 'item/completed').map((p) => p.item);
}

describe('apply_patch tool', () => {
  it('applies a freeform patch, reports a fileChange item and the turn diff', async () => {
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evCustomToolCall('p1', 'apply_patch', PATCH), evCompleted()] },
      answerTurn('patched'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, model: 'gpt-5.1-codex' });
    const events = await agent.runTurn('edit');

    const tools = (server.requests[0]?.body as { tools: { type: string; name?: string }[] }).tools;
    expect(tools.find((t) => t.name === 'apply_patch')?.type).toBe('custom');
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(outputs[0]).toMatchObject({ type: 'custom_tool_call_output', call_id: 'p1' });
    expect(String(outputs[0]?.output)).toMatch(
      /^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nSuccess\. Updated the following files:\nA hello\.txt\nM src\/app\.py\nD old\.txt\n$/,
    );
    expect(await ws.read('hello.txt')).toBe('Hello world\n');
    expect(await ws.read('src/app.py')).toContain('print("Hello, world!")');
    await expect(ws.read('old.txt')).rejects.toThrow();

    const change = completedItems(events).find((i) => i.type === 'fileChange');
    expect(change?.type === 'fileChange' && change.status).toBe('completed');
    expect(change?.type === 'fileChange' && change.changes.map((c) => [c.path, c.kind.type])).toEqual([
      [ws.path('hello.txt'), 'add'],
      [ws.path('src/app.py'), 'update'],
      [ws.path('old.txt'), 'delete'],
    ]);
    const diff = paramsOf(events, 'turn/diff/updated').at(-1)?.diff ?? '';
    expect(diff).toContain('diff --git a/hello.txt b/hello.txt\nnew file mode 100644');
    expect(diff).toContain('diff --git a/old.txt b/old.txt\ndeleted file mode 100644');
    expect(diff).toContain('-    print("Hi")\n+    print("Hello, world!")');
  });

  it('offers the JSON function form to models without freeform tools', async () => {
    server.enqueueMany([calls(evFunctionCall('p1', 'apply_patch', { input: PATCH })), answerTurn('ok')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('edit');
    const tools = (server.requests[0]?.body as { tools: { type: string; name?: string }[] }).tools;
    expect(tools.find((t) => t.name === 'apply_patch')?.type).toBe('function');
    expect(String(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output)).toContain(
      'Success. Updated the following files:',
    );
    expect(await ws.read('hello.txt')).toBe('Hello world\n');
  });

  it('writes nothing when any hunk fails, and says which', async () => {
    const bad = PATCH.replace('-    print("Hi")', '-    print("Nope")');
    server.enqueueMany([calls(evFunctionCall('p1', 'apply_patch', { input: bad })), answerTurn('ok')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('edit');
    const output = String(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output);
    expect(output).toContain('Failed to find expected lines in src/app.py');
    await expect(ws.read('hello.txt')).rejects.toThrow();
    expect(await ws.read('old.txt')).toBe('obsolete\n');
    expect(completedItems(events).some((i) => i.type === 'fileChange')).toBe(false);
  });

  it('asks before writing outside the writable roots, and writes nothing when declined', async () => {
    const outside = `*** Begin Patch\n*** Add File: ../escape.txt\n+nope\n*** End Patch`;
    server.enqueueMany([calls(evFunctionCall('p1', 'apply_patch', { input: outside })), answerTurn('ok')]);
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.path('src'),
      config: { approval_policy: 'on-request', sandbox_mode: 'workspace-write', sandbox_workspace_write: NO_TMP },
    });
    const events = await agent.runTurn('escape');
    expect(String(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output)).toBe('patch rejected by user');
    expect(agent.serverRequests).toEqual([
      {
        method: 'item/fileChange/requestApproval',
        params: {
          threadId: agent.session.threadId,
          turnId: expect.any(String),
          itemId: expect.any(String),
          startedAtMs: expect.any(Number),
          reason: expect.stringContaining(ws.path('escape.txt')),
          grantRoot: null,
        },
      },
    ]);
    await expect(ws.read('escape.txt')).rejects.toThrow();
    expect(completedItems(events).find((i) => i.type === 'fileChange')).toMatchObject({ status: 'declined' });
  });

  it('refuses outside writes without asking under "never"', async () => {
    const outside = `*** Begin Patch\n*** Add File: ../escape.txt\n+nope\n*** End Patch`;
    server.enqueueMany([calls(evFunctionCall('p1', 'apply_patch', { input: outside })), answerTurn('ok')]);
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.path('src'),
      config: { approval_policy: 'never', sandbox_mode: 'workspace-write', sandbox_workspace_write: NO_TMP },
    });
    await agent.runTurn('escape');
    expect(String(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output)).toMatch(
      /^patch rejected: the patch writes outside the writable folders .*approvals are set to "Never ask"/,
    );
    expect(agent.serverRequests).toEqual([]);
    await expect(ws.read('escape.txt')).rejects.toThrow();
  });

  it('routes an apply_patch heredoc sent through exec_command to the patch path', async () => {
    const cmd = `cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: added.py\n+x = 1\n*** End Patch\nEOF`;
    server.enqueueMany([calls(evFunctionCall('c1', 'exec_command', { cmd })), answerTurn('ok')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('heredoc');
    const output = String(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output);
    expect(output).toMatch(
      /^Warning: apply_patch was requested via exec_command\. Use the apply_patch tool instead of exec_command\.\n/,
    );
    expect(output).toContain('A added.py');
    expect(await ws.read('src/added.py')).toBe('x = 1\n');
    expect(completedItems(events).map((i) => i.type)).toContain('fileChange');
    expect(completedItems(events).map((i) => i.type)).not.toContain('commandExecution');
  });
});

describe('other tools', () => {
  it('update_plan publishes the plan and rejects two steps in progress', async () => {
    server.enqueueMany([
      calls(
        evFunctionCall('a', 'update_plan', {
          explanation: 'Start',
          plan: [
            { step: 'Read code', status: 'in_progress' },
            { step: 'Fix bug', status: 'pending' },
          ],
        }),
      ),
      calls(
        evFunctionCall('b', 'update_plan', {
          plan: [
            { step: 'Read code', status: 'in_progress' },
            { step: 'Fix bug', status: 'in_progress' },
          ],
        }),
      ),
      answerTurn('ok'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('plan');
    const plans = paramsOf(events, 'turn/plan/updated');
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({
      explanation: 'Start',
      plan: [
        { step: 'Read code', status: 'inProgress' },
        { step: 'Fix bug', status: 'pending' },
      ],
    });
    expect(String(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output)).toBe('Plan updated');
    expect(String(assertAllToolOutputsAnswered(server.requests[2]?.body)[1]?.output)).toMatch(
      /^plan rejected: 2 steps are in_progress/,
    );
  });

  it('view_image sends the image with the next request and explains bad paths', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    await writeFile(ws.path('pic.png'), png);
    server.enqueueMany([
      calls(
        evFunctionCall('i1', 'view_image', { path: 'pic.png' }),
        evFunctionCall('i2', 'view_image', { path: 'src/app.py' }),
        evFunctionCall('i3', 'view_image', { path: 'missing.png' }),
      ),
      answerTurn('ok'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('look');
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body).map((o) => String(o.output));
    expect(outputs[0]).toBe(`attached local image path: ${ws.path('pic.png')}`);
    expect(outputs[1]).toMatch(/^unable to view image: .*not an image/);
    expect(outputs[2]).toMatch(/^unable to view image: image not found/);
    const input = (
      server.requests[1]?.body as { input: { role?: string; content?: { type: string; image_url?: string }[] }[] }
    ).input;
    expect(input.at(-1)).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_image', image_url: `data:image/png;base64,${png.toString('base64')}` }],
    });
    expect(completedItems(events).filter((i) => i.type === 'imageView')).toEqual([
      { type: 'imageView', id: expect.any(String), path: ws.path('pic.png') },
    ]);
  });

  it('request_user_input asks the client and returns the answers to the model', async () => {
    server.enqueueMany([
      calls(
        evFunctionCall('q', 'request_user_input', {
          questions: [
            {
              id: 'db',
              header: 'Database',
              question: 'Which database?',
              options: [
                { label: 'Postgres (Recommended)', description: 'robust' },
                { label: 'SQLite', description: 'simple' },
              ],
            },
          ],
        }),
      ),
      answerTurn('ok'),
    ]);
    const statuses: unknown[] = [];
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.dir,
      sendRequest: async () => {
        statuses.push(agent?.session.status);
        return { answers: { db: { answers: ['SQLite'] } } };
      },
    });
    await agent.runTurn('ask');
    expect(agent.serverRequests).toEqual([
      {
        method: 'item/tool/requestUserInput',
        params: {
          threadId: agent.session.threadId,
          turnId: expect.any(String),
          itemId: expect.any(String),
          isBlocking: true,
          questions: [
            {
              id: 'db',
              header: 'Database',
              question: 'Which database?',
              isOther: true,
              isSecret: false,
              options: [
                { label: 'Postgres (Recommended)', description: 'robust' },
                { label: 'SQLite', description: 'simple' },
              ],
            },
          ],
        },
      },
    ]);
    expect(statuses).toEqual([{ type: 'active', activeFlags: ['waitingOnUserInput'], weftStep: { type: 'thinking' } }]);
    expect(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output).toBe(
      '{"answers":{"db":{"answers":["SQLite"]}}}',
    );
  });

  it('keeps a REPL running as a session that write_stdin drives', async () => {
    server.enqueueMany([
      calls(evFunctionCall('s1', 'exec_command', { cmd: 'bash --noprofile --norc', tty: true, yield_time_ms: 500 })),
      (req) => {
        const out = String(assertAllToolOutputsAnswered(req.body)[0]?.output);
        const id = /Process running with session ID (\d+)/.exec(out)?.[1];
        return calls(
          evFunctionCall('s2', 'write_stdin', {
            session_id: Number(id),
            chars: 'echo $((6*7))\n',
            yield_time_ms: 1000,
          }),
        );
      },
      (req) => {
        const outs = assertAllToolOutputsAnswered(req.body);
        const id = /Process running with session ID (\d+)/.exec(String(outs[0]?.output))?.[1];
        return calls(
          evFunctionCall('s3', 'write_stdin', { session_id: Number(id), chars: 'exit 7\n', yield_time_ms: 2000 }),
        );
      },
      answerTurn('done'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('repl');
    const outs = assertAllToolOutputsAnswered(server.requests[3]?.body).map((o) => String(o.output));
    expect(outs[0]).toMatch(/Process running with session ID \d+/);
    expect(outs[1]).toMatch(/[\r\n]42\r?\n/);
    expect(outs[2]).toContain('Process exited with code 7');
  });

  it('offers hosted web search when configured', async () => {
    server.enqueue(answerTurn('ok'));
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { web_search: 'live' } });
    await agent.runTurn('search');
    const tools = (server.requests[0]?.body as { tools: { type: string }[] }).tools;
    expect(tools.filter((t) => t.type === 'web_search')).toEqual([{ type: 'web_search', external_web_access: true }]);
  });
});
