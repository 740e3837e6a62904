import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paramsOf, startAgent, type AgentHarness } from '../support/agent';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({
    'AGENTS.md': '# Repo rules\nRun `npm test` before you finish.\n',
    'pkg/AGENTS.md': 'Ignored: the override below wins in this folder.\n',
    'pkg/AGENTS.override.md': 'In pkg/, keep functions pure.\n',
    'pkg/.agents/skills/release/SKILL.md':
      '---\nname: release\ndescription: Cut a release of this package\n---\nSteps…\n',
    'pkg/index.ts': 'export {};\n',
  });
  await mkdir(ws.path('.git'));
  await writeFile(ws.path('.git/HEAD'), 'ref: refs/heads/main\n');
  home = await makeWeftHome();
  await writeFile(join(home.dir, 'AGENTS.md'), 'Always answer in English.\n');
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

/** The request body with machine-specific parts replaced, so it can be compared across machines. */
function normalized(body: unknown): unknown {
  const text = JSON.stringify(body)
    .split(ws.dir)
    .join('<WORKSPACE>')
    .split(home.dir)
    .join('<WEFT_HOME>')
    .replace(/<current_date>\d{4}-\d\d-\d\d<\/current_date>/g, '<current_date>DATE</current_date>')
    .replace(/"prompt_cache_key":"[^"]+"/, '"prompt_cache_key":"THREAD_ID"');
  return JSON.parse(text) as unknown;
}

describe('project context', () => {
  it('sends the exact first request for a fixture project', async () => {
    server.enqueue(answerTurn('ok'));
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.path('pkg'),
      weftHome: home.dir,
      model: 'gpt-5.1-codex',
      config: {
        approval_policy: 'on-request',
        sandbox_mode: 'workspace-write',
        sandbox_workspace_write: { exclude_slash_tmp: true, exclude_tmpdir_env_var: true },
      },
    });
    await agent.runTurn('add a function');
    expect(normalized(server.requests[0]?.body)).toMatchSnapshot();
  });

  it('sends only what changed on later turns', async () => {
    server.enqueueMany([answerTurn('one'), answerTurn('two'), answerTurn('three')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.path('pkg'), weftHome: home.dir });
    await agent.runTurn('first');
    await agent.runTurn('second');
    const done = agent.next('turn/completed');
    await agent.session.startTurn([{ type: 'text', text: 'third' }], { approvalPolicy: 'untrusted', cwd: ws.dir });
    await done;
    const inputs = server.requests.map(
      (r) => (r.body as { input: { role?: string; content?: { text?: string }[] }[] }).input,
    );
    const roles = (i: number) => (inputs[i] ?? []).map((m) => m.role ?? 'item');
    expect(roles(0)).toEqual(['developer', 'user', 'user']);
    // Turn two adds only the user's message (and turn one's answer).
    expect(roles(1)).toEqual([...roles(0), 'assistant', 'user']);
    // Turn three changed the approval policy and the cwd: a new permissions message and a new context.
    const added = (inputs[2] ?? []).slice((inputs[1] ?? []).length + 1);
    expect(added.map((m) => m.role)).toEqual(['developer', 'user', 'user']);
    expect(added[0]?.content?.[0]?.text).toContain('<permissions instructions>');
    expect(added[1]?.content?.map((c) => c.text).join('\n')).toContain(`<cwd>${ws.dir}</cwd>`);
    expect(added[1]?.content?.[0]?.text).toContain('Run `npm test` before you finish.');
    expect(added[2]?.content?.[0]?.text).toBe('third');
    expect(paramsOf(agent.events, 'warning')).toEqual([]);
  });
});
