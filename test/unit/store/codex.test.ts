import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponseItem, Turn } from '../../../src-preload/protocol';
import type { ThreadStore } from '../../../src-main/store';
import { ScriptedSession, fakeClock, openStore, tempHome, type TempHome } from './helpers';

const CODEX_ID = '0199a000-1111-7222-8333-444455556666';
let tmp: TempHome;
let store: ThreadStore;
let codexHome: string;
let codexFile: string;

const line = (ts: number, type: string, payload: unknown): string =>
  JSON.stringify({ timestamp: new Date(Date.UTC(2025, 8, 1, 10, 0, ts)).toISOString(), type, payload });
const ev = (ts: number, payload: unknown): string => line(ts, 'event_msg', payload);
const ri = (ts: number, payload: ResponseItem): string => line(ts, 'response_item', payload);
const ctx = (ts: number, turnId: string): string =>
  line(ts, 'turn_context', {
    turn_id: turnId,
    cwd: '/home/u/proj',
    approval_policy: 'on-request',
    sandbox_policy: {
      type: 'workspace-write',
      writable_roots: [],
      network_access: false,
      exclude_tmpdir_env_var: false,
      exclude_slash_tmp: false,
    },
    model: 'gpt-5-codex',
    effort: 'high',
    summary: 'auto',
  });
const user = (text: string): ResponseItem => ({
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text }],
});
const usage = {
  input_tokens: 100,
  cached_input_tokens: 10,
  output_tokens: 20,
  reasoning_output_tokens: 5,
  total_tokens: 120,
};

const HISTORY: ResponseItem[] = [
  user('<environment_context>\n  <cwd>/home/u/proj</cwd>\n</environment_context>'),
  user('list the files'),
  {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: '**Listing**' }],
    content: null,
    encrypted_content: 'gAAA',
  },
  { type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","ls"]}', call_id: 'call_a' },
  { type: 'function_call_output', call_id: 'call_a', output: 'a\nb\n' },
  { type: 'custom_tool_call', call_id: 'call_b', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
  { type: 'custom_tool_call_output', call_id: 'call_b', output: 'Success' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'There are two files.' }] },
  user('now delete them'),
];

function codexRollout(): string {
  const [env, u1, reasoning, call, out, patch, patchOut, answer, u2] = HISTORY;
  if (!env || !u1 || !reasoning || !call || !out || !patch || !patchOut || !answer || !u2) throw new Error('fixture');
  return (
    [
      line(0, 'session_meta', {
        id: CODEX_ID,
        timestamp: '2025-09-01T10:00:00.000Z',
        cwd: '/home/u/proj',
        originator: 'codex_cli_rs',
        cli_version: '0.50.0',
        instructions: null,
        source: 'cli',
        model_provider: 'openai',
        base_instructions: { text: 'You are Codex.' },
        git: { commit_hash: 'deadbeef', branch: 'main', repository_url: 'git@example.com:u/proj.git' },
      }),
      ri(1, env),
      ev(2, { type: 'task_started', turn_id: 't1', model_context_window: 272000 }),
      ctx(2, 't1'),
      ri(3, u1),
      ev(3, { type: 'user_message', message: 'list the files', images: null, local_images: [], text_elements: [] }),
      ri(4, reasoning),
      ev(4, { type: 'agent_reasoning', text: '**Listing**' }),
      ev(4, { type: 'agent_reasoning', text: 'second part' }),
      ri(5, call),
      ev(6, {
        type: 'exec_command_end',
        call_id: 'call_a',
        command: ['bash', '-lc', 'ls'],
        cwd: '/home/u/proj',
        parsed_cmd: [{ type: 'list_files', cmd: 'ls', path: null }],
        stdout: 'a\nb\n',
        stderr: '',
        aggregated_output: 'a\nb\n',
        exit_code: 0,
        duration: { secs: 0, nanos: 120000000 },
        formatted_output: 'a\nb\n',
      }),
      ri(6, out),
      ri(7, patch),
      ev(8, {
        type: 'patch_apply_end',
        call_id: 'call_b',
        stdout: 'Success',
        stderr: '',
        success: true,
        changes: { '/home/u/proj/a': { type: 'update', unified_diff: '@@ -1 +1 @@\n-x\n+y\n', move_path: null } },
      }),
      ri(8, patchOut),
      line(8, 'future_line_kind', { anything: true }),
      ev(8, { type: 'mystery_event', data: 1 }),
      ri(9, answer),
      ev(9, { type: 'agent_message', message: 'There are two files.' }),
      ev(9, {
        type: 'token_count',
        info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 272000 },
        rate_limits: { primary: null },
      }),
      ev(10, { type: 'task_complete', turn_id: 't1', last_agent_message: 'There are two files.' }),
      ev(11, { type: 'task_started', turn_id: 't2' }),
      ctx(11, 't2'),
      ri(12, u2),
      ev(12, { type: 'user_message', message: 'now delete them', images: null, local_images: [] }),
      ev(13, { type: 'turn_aborted', turn_id: 't2', reason: 'interrupted' }),
      ev(14, { type: 'task_started', turn_id: 't3' }),
      ctx(14, 't3'),
      ri(15, user('oops')),
      ev(15, { type: 'user_message', message: 'oops', images: null, local_images: [] }),
      ev(16, { type: 'agent_message', message: 'ok' }),
      ev(17, { type: 'task_complete', turn_id: 't3', last_agent_message: 'ok' }),
      ev(18, { type: 'thread_rolled_back', num_turns: 1 }),
    ].join('\n') + '\n'
  );
}

const EXPECTED_TURNS: Turn[] = [
  {
    id: 't1',
    status: 'completed',
    error: null,
    startedAt: Date.UTC(2025, 8, 1, 10, 0, 2) / 1000,
    completedAt: Date.UTC(2025, 8, 1, 10, 0, 10) / 1000,
    durationMs: 8000,
    // Rebuilt from the patch that landed (Codex records no turn diff).
    weftDiff:
      'diff --git a/home/u/proj/a b/home/u/proj/a\n--- a/home/u/proj/a\n+++ b/home/u/proj/a\n@@ -1 +1 @@\n-x\n+y\n',
    items: [
      { type: 'userMessage', id: expect.any(String) as string, content: [{ type: 'text', text: 'list the files' }] },
      { type: 'reasoning', id: expect.any(String) as string, summary: ['**Listing**', 'second part'], content: [] },
      {
        type: 'commandExecution',
        id: 'call_a',
        command: 'ls',
        cwd: '/home/u/proj',
        processId: null,
        status: 'completed',
        commandActions: [{ type: 'listFiles', command: 'ls', path: null }],
        aggregatedOutput: 'a\nb\n',
        exitCode: 0,
        durationMs: 120,
      },
      {
        type: 'fileChange',
        id: 'call_b',
        changes: [{ path: '/home/u/proj/a', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-x\n+y\n' }],
        status: 'completed',
      },
      { type: 'agentMessage', id: expect.any(String) as string, text: 'There are two files.', phase: null },
    ],
  },
  {
    id: 't2',
    status: 'interrupted',
    error: null,
    startedAt: Date.UTC(2025, 8, 1, 10, 0, 11) / 1000,
    completedAt: Date.UTC(2025, 8, 1, 10, 0, 13) / 1000,
    durationMs: 2000,
    items: [
      { type: 'userMessage', id: expect.any(String) as string, content: [{ type: 'text', text: 'now delete them' }] },
    ],
  },
];

beforeEach(async () => {
  tmp = await tempHome();
  codexHome = join(tmp.home, 'codex-home');
  const dir = join(codexHome, 'sessions', '2025', '09', '01');
  mkdirSync(dir, { recursive: true });
  codexFile = join(dir, `rollout-2025-09-01T10-00-00-${CODEX_ID}.jsonl`);
  writeFileSync(codexFile, codexRollout());
  writeFileSync(
    join(codexHome, 'session_index.jsonl'),
    [
      JSON.stringify({ id: CODEX_ID, thread_name: 'Old name', updated_at: '2025-09-01T10:00:01Z' }),
      JSON.stringify({ id: CODEX_ID, thread_name: 'Listing files', updated_at: '2025-09-01T10:00:20Z' }),
    ].join('\n') + '\n',
  );
  const weftHome = join(tmp.home, 'weft-home');
  ({ store } = openStore(weftHome, fakeClock(Date.UTC(2025, 9, 1))));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

describe('Codex rollouts', () => {
  it('read with their turns, items and model history (rollbacks applied, unknown lines ignored)', () => {
    const state = store.load({ path: codexFile });
    expect(state.warnings).toEqual([]);
    expect(state.turns).toEqual(EXPECTED_TURNS);
    expect(state.history).toEqual(HISTORY);
    expect(state.tokenUsage?.total).toEqual({
      totalTokens: 120,
      inputTokens: 100,
      cachedInputTokens: 10,
      outputTokens: 20,
      reasoningOutputTokens: 5,
    });
    expect(state.lastTurnContext).toMatchObject({
      turnId: 't3',
      model: 'gpt-5-codex',
      sandboxPolicy: { type: 'workspaceWrite' },
    });
    expect(state.thread).toMatchObject({
      id: CODEX_ID,
      preview: 'list the files',
      cwd: '/home/u/proj',
      cliVersion: '0.50.0',
      source: 'cli',
      gitInfo: { sha: 'deadbeef', branch: 'main', originUrl: 'git@example.com:u/proj.git' },
    });
  });

  it('are listed and searchable after import, with their Codex names, and stay listed after a rebuild', async () => {
    const result = await store.importCodex(codexHome);
    expect(result).toEqual({ imported: 1, warnings: [] });
    const listed = store.list().data;
    expect(listed.map((t) => [t.id, t.name, t.preview, t.path])).toEqual([
      [CODEX_ID, 'Listing files', 'list the files', codexFile],
    ]);
    expect(store.list({ searchTerm: 'two files' }).data.map((t) => t.id)).toEqual([CODEX_ID]);
    expect(store.list({ cwd: '/home/u/proj' }).data).toHaveLength(1);
    await store.reindex();
    expect(store.list().data.map((t) => t.name)).toEqual(['Listing files']);
    expect(await store.importCodex(join(tmp.home, 'nowhere'))).toMatchObject({
      imported: 0,
      warnings: [expect.stringMatching(/no Codex threads/)],
    });
  });

  it('are never changed by Weft: a rename goes to a Weft copy under the same id (and to session_index.jsonl)', async () => {
    await store.importCodex(codexHome);
    const before = readFileSync(codexFile);
    await store.setName(CODEX_ID, 'Renamed in Weft');
    expect(readFileSync(codexFile)).toEqual(before);
    const [listed] = store.list().data;
    expect(listed).toMatchObject({ id: CODEX_ID, name: 'Renamed in Weft' });
    expect(listed?.path?.startsWith(join(tmp.home, 'weft-home', 'sessions'))).toBe(true);
    expect(store.list().data).toHaveLength(1);
    const index = readFileSync(join(tmp.home, 'weft-home', 'session_index.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(index).toEqual([{ id: CODEX_ID, thread_name: 'Renamed in Weft', updated_at: expect.any(String) }]);
    expect(store.load(CODEX_ID).turns).toEqual(EXPECTED_TURNS);
    await store.reindex();
    expect(store.list().data.map((t) => [t.id, t.name, t.path])).toEqual([[CODEX_ID, 'Renamed in Weft', listed?.path]]);
  });

  it('continue under the same id when resumed: the first write copies the thread into WEFT_HOME', async () => {
    await store.importCodex(codexHome);
    const before = readFileSync(codexFile);
    const { state, recorder } = store.openForAppend(CODEX_ID);
    expect(state.thread.id).toBe(CODEX_ID);
    expect(state.thread).toMatchObject({ forkedFromId: null, name: 'Listing files', path: recorder.path });
    expect(recorder.path).toBe(
      join(tmp.home, 'weft-home', 'sessions/2025/09/01', `rollout-2025-09-01T10-00-00-${CODEX_ID}.jsonl`),
    );
    expect(state.turns).toEqual(EXPECTED_TURNS);
    expect(state.history).toEqual(HISTORY);
    expect(existsSync(recorder.path)).toBe(false);

    const s = new ScriptedSession(state.thread.id, recorder);
    await s.turn([{ type: 'text', text: 'continue in weft' }], 'completed');
    await recorder.close();
    const after = store.load(CODEX_ID);
    expect(after.warnings).toEqual([]);
    expect(after.turns).toEqual([...EXPECTED_TURNS, ...s.transcript.turns]);
    expect(after.history).toEqual([...HISTORY, ...s.transcript.history]);
    expect(after.thread).toMatchObject({
      id: CODEX_ID,
      forkedFromId: null,
      name: 'Listing files',
      path: recorder.path,
    });
    expect(readFileSync(codexFile)).toEqual(before);
    expect(store.list().data.map((t) => [t.id, t.path])).toEqual([[CODEX_ID, recorder.path]]);
    const ordinals = readFileSync(recorder.path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { ordinal?: number }).ordinal);
    expect(ordinals).toEqual(ordinals.map((_, i) => i));
    expect(readdirSync(codexHome, { recursive: true }).map(String).sort()).toEqual([
      'session_index.jsonl',
      'sessions',
      'sessions/2025',
      'sessions/2025/09',
      'sessions/2025/09/01',
      `sessions/2025/09/01/rollout-2025-09-01T10-00-00-${CODEX_ID}.jsonl`,
    ]);
  });
});
