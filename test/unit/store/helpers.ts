// Shared helpers for the thread store tests: a temp WEFT_HOME, a fake clock, and a scripted session that
// records every item kind through a SessionRecorder and remembers what a live client saw.
import { afterEach, beforeEach } from 'vitest';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  JsonValue,
  ResponseItem,
  ServerNotification,
  ThreadItem,
  ThreadTokenUsage,
  Turn,
  UserInput,
} from '../../../src-preload/protocol';
import type { SessionRecorder } from '../../../src-main/store';
import type { TurnDetails } from '../../../src-main/store';
import { ThreadStore } from '../../../src-main/store';
import { diffFromFileChanges } from '../../../src-main/store/turn-diff-rebuild';

export interface TempHome {
  home: string;
  dispose(): Promise<void>;
}

export async function tempHome(): Promise<TempHome> {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'weft-store-')));
  return { home, dispose: () => rm(home, { recursive: true, force: true }) };
}

/** A clock that moves one second per call, from 2025-03-04 05:06:07 UTC. */
export function fakeClock(startMs = Date.UTC(2025, 2, 4, 5, 6, 7)): () => Date {
  let t = startMs;
  return () => {
    const d = new Date(t);
    t += 1000;
    return d;
  };
}

/** A temp home with an indexed store, made before each test of the file and removed after it. */
export class StoreFixture {
  private home: TempHome | null = null;
  private current: ThreadStore | null = null;

  get tmp(): TempHome {
    if (this.home === null) throw new Error('no store: use the fixture inside a test');
    return this.home;
  }

  get store(): ThreadStore {
    if (this.current === null) throw new Error('no store: use the fixture inside a test');
    return this.current;
  }

  /** A store opened again by the test (closed after it instead of the first). */
  set store(store: ThreadStore) {
    this.current = store;
  }

  static forEachTest(): StoreFixture {
    const fixture = new StoreFixture();
    beforeEach(async () => {
      fixture.home = await tempHome();
      fixture.current = openStore(fixture.home.home).store;
      await fixture.current.whenIndexed();
    });
    afterEach(async () => {
      await fixture.current?.close();
      await fixture.home?.dispose();
      fixture.current = null;
      fixture.home = null;
    });
    return fixture;
  }
}

export function openStore(home: string, now = fakeClock(), repair = true): { store: ThreadStore; warnings: string[] } {
  const warnings: string[] = [];
  const store = ThreadStore.open(home, { now, onWarning: (m) => warnings.push(m), repair });
  return { store, warnings };
}

export const meta = (id: string, cwd = '/work/project') => ({
  id,
  cwd,
  modelProvider: 'openai',
  model: 'gpt-5.1-codex',
  source: 'appServer',
  baseInstructions: 'You are Weft.',
  git: { sha: 'abc123', branch: 'main', originUrl: 'https://example.com/repo.git' },
});

/** What a live client saw: turns (items in completion order), details, and the model history. */
export interface Transcript {
  turns: Turn[];
  details: TurnDetails[];
  history: ResponseItem[];
  tokenUsage: ThreadTokenUsage | null;
  name: string | null;
}

const usage = (n: number): ThreadTokenUsage => ({
  total: {
    totalTokens: n * 10,
    inputTokens: n * 7,
    cachedInputTokens: n,
    outputTokens: n * 3,
    reasoningOutputTokens: n,
  },
  last: { totalTokens: n, inputTokens: 6, cachedInputTokens: 0, outputTokens: n - 6, reasoningOutputTokens: 1 },
  modelContextWindow: 272000,
});

/** Drives a recorder like a session does, turn by turn, and keeps the transcript a client would have. */
export class ScriptedSession {
  readonly transcript: Transcript = { turns: [], details: [], history: [], tokenUsage: null, name: null };
  private turnNo = 0;
  private clock = 1_700_000_000;

  constructor(
    readonly threadId: string,
    readonly recorder: SessionRecorder,
  ) {}

  private emit(n: ServerNotification): void {
    this.recorder.notification(n);
  }

  private history(items: ResponseItem[]): void {
    this.transcript.history.push(...items);
    this.recorder.responseItems(items);
  }

  /** Runs one turn; `body` records its items through the helpers given to it. */
  async turn(
    input: UserInput[],
    status: Turn['status'],
    body: (t: TurnScript) => void = () => undefined,
  ): Promise<Turn> {
    this.turnNo++;
    const id = `turn-${this.threadId.slice(-4)}-${this.turnNo}`;
    const startedAt = this.clock++;
    const started: Turn = {
      id,
      items: [],
      status: 'inProgress',
      error: null,
      startedAt,
      completedAt: null,
      durationMs: null,
    };
    const details: TurnDetails = { turnId: id, plan: null, approvals: [], errors: [] };
    const items: ThreadItem[] = [];
    this.emit({ method: 'turn/started', params: { threadId: this.threadId, turn: started } });
    this.recorder.turnContext({
      turnId: id,
      cwd: '/work/project',
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
    const item = (i: ThreadItem): void => {
      this.emit({
        method: 'item/started',
        params: { threadId: this.threadId, turnId: id, item: i, startedAtMs: 1_000 },
      });
      this.emit({
        method: 'item/agentMessage/delta',
        params: { threadId: this.threadId, turnId: id, itemId: i.id, delta: 'x' },
      });
      this.emit({
        method: 'item/completed',
        params: { threadId: this.threadId, turnId: id, item: i, completedAtMs: 2_000 },
      });
      items.push(i);
    };
    const userText = input.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
    this.history([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: userText }] }]);
    item({ type: 'userMessage', id: `${id}-user`, content: input });
    let error: Turn['error'] = null;
    body({
      turnId: id,
      item,
      history: (h) => this.history(h),
      approval: (kind, itemId, request, decision) => {
        this.recorder.approval({ turnId: id, itemId, kind, request, decision });
        details.approvals.push({ turnId: id, itemId, kind, request, decision });
      },
      plan: (explanation, plan) => {
        this.emit({ method: 'turn/plan/updated', params: { threadId: this.threadId, turnId: id, explanation, plan } });
        details.plan = { explanation, plan };
      },
      usage: (n) => {
        const u = usage(n);
        this.emit({
          method: 'thread/tokenUsage/updated',
          params: { threadId: this.threadId, turnId: id, tokenUsage: u },
        });
        this.transcript.tokenUsage = u;
      },
      fail: (message) => {
        error = { message, codexErrorInfo: 'contextWindowExceeded', additionalDetails: null };
        this.emit({
          method: 'error',
          params: {
            error: { message: 'Reconnecting... 1/5', codexErrorInfo: null, additionalDetails: null },
            willRetry: true,
            threadId: this.threadId,
            turnId: id,
          },
        });
        this.emit({ method: 'error', params: { error, willRetry: false, threadId: this.threadId, turnId: id } });
        details.errors.push(error);
      },
      compact: (message, replacement) => {
        this.recorder.compacted({ message, replacementHistory: replacement });
        this.transcript.history = [...replacement];
      },
      rename: (name) => {
        this.emit({ method: 'thread/name/updated', params: { threadId: this.threadId, name } });
        this.transcript.name = name;
      },
    });
    const completedAt = this.clock++;
    const done: Turn = {
      id,
      items: [],
      status,
      error: status === 'failed' ? error : null,
      startedAt,
      completedAt,
      durationMs: (completedAt - startedAt) * 1000,
    };
    this.emit({ method: 'turn/completed', params: { threadId: this.threadId, turn: done } });
    // A turn read back carries the diff of the patches that landed in it (none of these turns records one).
    const diff = diffFromFileChanges(items);
    const turn: Turn = { ...done, items, ...(diff === null ? {} : { weftDiff: diff }) };
    this.transcript.turns.push(turn);
    this.transcript.details.push(details);
    // Rejects when the recorder could not make the turn durable (the transcript has it all the same).
    await this.recorder.turnEnded();
    return turn;
  }
}

export interface TurnScript {
  turnId: string;
  item(i: ThreadItem): void;
  history(items: ResponseItem[]): void;
  approval(kind: 'command' | 'fileChange', itemId: string, request: JsonValue, decision: JsonValue): void;
  plan(explanation: string | null, plan: { step: string; status: 'pending' | 'inProgress' | 'completed' }[]): void;
  usage(n: number): void;
  fail(message: string): void;
  compact(message: string, replacement: ResponseItem[]): void;
  rename(name: string): void;
}

/** A thread with every item kind, approvals, a plan, a failed, a compacted and an interrupted turn. */
export async function scriptEveryKind(s: ScriptedSession): Promise<void> {
  await s.turn(
    [
      { type: 'text', text: 'Fix the failing test in parser.ts' },
      { type: 'image', url: 'data:image/png;base64,AAAA' },
      { type: 'localImage', path: '/tmp/shot.png' },
    ],
    'completed',
    (t) => {
      t.history([
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Looking at the test' }],
          encrypted_content: 'opaque',
        },
      ]);
      t.item({ type: 'reasoning', id: `${t.turnId}-r`, summary: ['Looking at the test'], content: [] });
      t.plan('First look, then fix', [
        { step: 'Run the tests', status: 'completed' },
        { step: 'Fix the parser', status: 'inProgress' },
      ]);
      t.history([{ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"npm test"}', call_id: 'call-1' }]);
      t.approval('command', 'call-1', { command: 'npm test', cwd: '/work/project' }, 'accept');
      t.item({
        type: 'commandExecution',
        id: 'call-1',
        command: 'npm test',
        cwd: '/work/project',
        processId: '42',
        status: 'failed',
        commandActions: [{ type: 'unknown', command: 'npm test' }],
        aggregatedOutput: 'FAIL parser.test.ts\n  expected 1, got 2\n',
        exitCode: 1,
        durationMs: 1234,
      });
      t.history([{ type: 'function_call_output', call_id: 'call-1', output: 'FAIL parser.test.ts' }]);
      t.item({ type: 'plan', id: `${t.turnId}-plan`, text: '1. Run the tests\n2. Fix the parser' });
      t.history([
        { type: 'custom_tool_call', call_id: 'call-2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
      ]);
      t.approval(
        'fileChange',
        'call-2',
        { reason: null },
        { decision: 'accept', weftHunks: [{ path: 'parser.ts', hunk: 0, decision: 'accept' }] },
      );
      t.item({
        type: 'fileChange',
        id: 'call-2',
        changes: [
          { path: '/work/project/parser.ts', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-a\n+b\n' },
          { path: '/work/project/new.ts', kind: { type: 'add' }, diff: 'export {};\n' },
        ],
        status: 'completed',
      });
      t.history([{ type: 'custom_tool_call_output', call_id: 'call-2', output: 'Success' }]);
      t.item({
        type: 'mcpToolCall',
        id: 'call-3',
        server: 'docs',
        tool: 'search',
        status: 'completed',
        arguments: { q: 'parser' },
        result: { content: [{ type: 'text', text: 'found' }] },
        error: null,
        durationMs: 15,
      });
      t.item({ type: 'webSearch', id: 'ws-1', query: 'vitest toEqual' });
      t.item({ type: 'imageView', id: 'iv-1', path: '/work/project/diagram.png' });
      t.item({ type: 'agentMessage', id: `${t.turnId}-c`, text: 'Running the tests first.', phase: 'commentary' });
      t.history([
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Fixed: the parser now counts from zero.' }],
          phase: 'final_answer',
        },
      ]);
      t.item({
        type: 'agentMessage',
        id: `${t.turnId}-a`,
        text: 'Fixed: the parser now counts from zero.',
        phase: 'final_answer',
      });
      t.usage(100);
      t.rename('Parser fix');
    },
  );
  await s.turn([{ type: 'text', text: 'Now make it faster' }], 'failed', (t) => {
    t.fail('the context window is full');
  });
  await s.turn([{ type: 'text', text: 'Compact please' }], 'completed', (t) => {
    t.item({ type: 'contextCompaction', id: `${t.turnId}-compact` });
    t.compact('Summary: the parser was fixed.', [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Summary: the parser was fixed.' }] },
    ]);
    t.usage(120);
  });
  await s.turn([{ type: 'text', text: 'Explain the change' }], 'interrupted', (t) => {
    t.history([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The parser' }] }]);
    t.item({ type: 'agentMessage', id: `${t.turnId}-a`, text: 'The parser', phase: null });
  });
}
