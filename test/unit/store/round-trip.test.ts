import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseRolloutLine } from '../../../src-preload/protocol';
import type { ThreadStore } from '../../../src-main/store';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, openStore, scriptEveryKind, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let store: ThreadStore;
let warnings: string[];

beforeEach(async () => {
  tmp = await tempHome();
  ({ store, warnings } = openStore(tmp.home));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

describe('recording and resuming a thread', () => {
  it('keeps mention and skill inputs of a user message (they are never written as null)', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    const session = new ScriptedSession(id, recorder);
    const input = [
      { type: 'text' as const, text: 'Use the skill on the file' },
      { type: 'mention' as const, name: 'parser.ts', path: '/work/project/src/parser.ts' },
      { type: 'skill' as const, name: 'refactor', path: '/home/me/.weft/skills/refactor/SKILL.md' },
    ];
    await session.turn(input, 'completed');
    await recorder.close();

    const userMessages = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"UserMessage"'))
      .map((line) => JSON.stringify(JSON.parse(line)));
    expect(userMessages).toHaveLength(1);
    expect(userMessages[0]).not.toContain('null');
    expect(userMessages[0]).toContain('"type":"mention"');
    const state = store.load(id);
    expect(state.warnings).toEqual([]);
    expect(state.turns[0]?.items[0]).toEqual({ type: 'userMessage', id: expect.any(String), content: input });
  });

  it('resumes with the same turns, items, details and model history the live thread had', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    const session = new ScriptedSession(id, recorder);
    await scriptEveryKind(session);
    await recorder.close();

    const state = store.load(id);
    expect(state.warnings).toEqual([]);
    expect(state.turns).toEqual(session.transcript.turns);
    expect(state.turnDetails).toEqual(session.transcript.details);
    expect(state.history).toEqual(session.transcript.history);
    expect(state.tokenUsage).toEqual(session.transcript.tokenUsage);
    expect(state.thread).toMatchObject({
      id,
      path,
      forkedFromId: null,
      preview: 'Fix the failing test in parser.ts',
      name: 'Parser fix',
      cwd: '/work/project',
      modelProvider: 'openai',
      source: 'appServer',
      status: { type: 'notLoaded' },
      gitInfo: { sha: 'abc123', branch: 'main', originUrl: 'https://example.com/repo.git' },
    });
    expect(state.lastTurnContext).toMatchObject({
      turnId: session.transcript.turns[3]?.id,
      approvalPolicy: 'on-request',
      sandboxPolicy: {
        type: 'workspaceWrite',
        writableRoots: [],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      },
      model: 'gpt-5.1-codex',
      effort: 'medium',
      summary: 'auto',
    });
    expect(warnings).toEqual([]);
  });

  it('writes every line in the rollout schema, in Codex 0.169 form (paginated, ordinals, item_completed items)', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    await scriptEveryKind(new ScriptedSession(id, recorder));
    await recorder.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const parsed = lines.map((l) => parseRolloutLine(l));
    expect(parsed.every((p) => p.ok)).toBe(true);
    const types = parsed.map((p) => (p.ok ? p.line.type : ''));
    expect(types[0]).toBe('session_meta');
    expect(new Set(types)).toEqual(
      new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']),
    );
    const json = lines.map(
      (l) =>
        JSON.parse(l) as {
          ordinal?: number;
          payload: { type?: string; history_mode?: string; item?: { type: string; content?: { text: string }[] } };
        },
    );
    expect(json.map((l) => l.ordinal)).toEqual(json.map((_, i) => i));
    expect(json[0]?.payload.history_mode).toBe('paginated');
    const items = json
      .map((l) => l.payload)
      .filter((p) => p.type === 'item_completed')
      .map((p) => p.item);
    const texts = (kind: string): string[] =>
      items.filter((i) => i?.type === kind).map((i) => (i?.content ?? []).map((c) => c.text).join(''));
    expect(texts('UserMessage')).toEqual([
      'Fix the failing test in parser.ts',
      'Now make it faster',
      'Compact please',
      'Explain the change',
    ]);
    expect(texts('AgentMessage')).toEqual([
      'Running the tests first.',
      'Fixed: the parser now counts from zero.',
      'The parser',
    ]);
    expect(new Set(items.map((i) => i?.type))).toEqual(
      new Set([
        'UserMessage',
        'AgentMessage',
        'Reasoning',
        'Plan',
        'CommandExecution',
        'FileChange',
        'WebSearch',
        'ImageView',
        'ContextCompaction',
      ]),
    );
    expect(json.some((l) => l.payload.type === 'user_message' || l.payload.type === 'agent_message')).toBe(false);
    expect(lines.some((l) => l.includes('"Reconnecting'))).toBe(false);
    expect(lines.some((l) => l.includes('item/agentMessage/delta') || l.includes('"delta"'))).toBe(false);
  });

  it('continues a resumed thread in the same file', async () => {
    const id = uuidv7();
    const first = store.createThread(meta(id));
    const session = new ScriptedSession(id, first.recorder);
    await session.turn([{ type: 'text', text: 'hello' }], 'completed');
    await first.recorder.close();

    const { state, recorder } = store.openForAppend(id);
    expect(state.turns).toEqual(session.transcript.turns);
    expect(recorder.path).toBe(first.path);
    const resumed = new ScriptedSession(id, recorder);
    await resumed.turn([{ type: 'text', text: 'again' }], 'completed');
    await recorder.close();

    const after = store.load(id);
    expect(after.turns.map((t) => t.items[0])).toEqual([
      session.transcript.turns[0]?.items[0],
      resumed.transcript.turns[0]?.items[0],
    ]);
    expect(after.history).toEqual([...session.transcript.history, ...resumed.transcript.history]);
    expect(after.thread.preview).toBe('hello');
    const sessionsFiles = readdirSync(join(tmp.home, 'sessions'), { recursive: true }).filter((f) =>
      String(f).endsWith('.jsonl'),
    );
    expect(sessionsFiles).toHaveLength(1);
  });

  it('changes nothing when a thread is opened and closed without a turn', async () => {
    const id = uuidv7();
    const first = store.createThread(meta(id));
    await new ScriptedSession(id, first.recorder).turn([{ type: 'text', text: 'hello' }], 'completed');
    await first.recorder.close();
    const bytes = readFileSync(first.path);
    const listed = store.list().data;
    const { recorder } = store.openForAppend(id);
    await recorder.turnEnded();
    await recorder.close();
    expect(readFileSync(first.path)).toEqual(bytes);
    expect(store.list().data).toEqual(listed);
  });

  it('leaves no file for a thread that never recorded anything', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    await recorder.turnEnded();
    await recorder.close();
    expect(existsSync(path)).toBe(false);
    expect(store.list().data).toEqual([]);
  });

  it('pages the turns of a thread from the newest, without gaps or repeats', async () => {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    const session = new ScriptedSession(id, recorder);
    for (let i = 0; i < 7; i++) await session.turn([{ type: 'text', text: `message ${i}` }], 'completed');
    await recorder.close();

    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const page = store.read(id, { includeTurns: true, turnsLimit: 3, turnsCursor: cursor });
      expect(page.totalTurns).toBe(7);
      seen.unshift(...page.thread.turns.map((t) => t.id));
      pages.push(page.thread.turns.length);
      cursor = page.olderTurnsCursor;
    } while (cursor !== null);
    expect(pages).toEqual([3, 3, 1]);
    expect(seen).toEqual(session.transcript.turns.map((t) => t.id));
    const resumed = store.load(id, { turnsLimit: 2 });
    expect(resumed.turns).toEqual(session.transcript.turns.slice(5));
    expect(resumed.history).toEqual(session.transcript.history);
  });
});
