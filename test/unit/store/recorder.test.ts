// The recorder on its own, against an in-memory writer: every line it writes is in the rollout schema
// (one schema per line kind, src-preload/protocol/rollout.ts), numbered, and the index hears what it must.
import { describe, expect, it } from 'vitest';
import { WrittenEventPayloads, parseRolloutLine, parseWrittenEvent } from '../../../src-preload/protocol';
import type { RecorderWriter, IndexDelta } from '../../../src-main/store/recorder';
import { RolloutRecorder } from '../../../src-main/store/recorder';
import { DEFAULT_ATTRIBUTES } from '../../../src-main/store/thread-events';
import type { RolloutWriteError } from '../../../src-main/store/errors';
import type { RolloutLine } from '../../../src-main/store/rollout-writer';
import { ScriptedSession, fakeClock, scriptEveryKind } from './helpers';

/** A line's whole text, as the writer would write it (pieces joined). */
function textOf(line: RolloutLine): string {
  const made = typeof line === 'string' ? line : line();
  if (typeof made === 'string') return made;
  let text = '';
  for (let piece = made.next(); piece.done !== true; piece = made.next()) text += piece.value;
  return text;
}

class MemoryWriter implements RecorderWriter {
  readonly path = '/memory/rollout.jsonl';
  readonly lines: string[] = [];
  created = true;
  unsaved: RolloutWriteError | null = null;
  syncs = 0;
  closed = false;
  append(lines: readonly RolloutLine[]): void {
    for (const l of lines) this.lines.push(textOf(l));
  }
  written(): Promise<void> {
    return Promise.resolve();
  }
  durable(): Promise<void> {
    this.syncs++;
    return Promise.resolve();
  }
  sync(): Promise<void> {
    this.syncs++;
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function makeRecorder(options: { nextOrdinal?: number; hasPreview?: boolean; name?: string | null } = {}) {
  const writer = new MemoryWriter();
  const deltas: IndexDelta[] = [];
  let closedCalls = 0;
  const recorder = new RolloutRecorder(writer, {
    threadId: 'thr-1',
    nextOrdinal: options.nextOrdinal ?? 1,
    sessionIndex: null,
    now: fakeClock(),
    sink: { update: (d) => deltas.push(d), closed: () => closedCalls++ },
    hasPreview: options.hasPreview ?? false,
    attributes: { ...DEFAULT_ATTRIBUTES, name: options.name ?? null },
  });
  const json = (): { ordinal: number; type: string; payload: { type?: string } & Record<string, unknown> }[] =>
    writer.lines.map(
      (l) => JSON.parse(l) as { ordinal: number; type: string; payload: { type?: string } & Record<string, unknown> },
    );
  return { writer, recorder, deltas, json, closedCalls: () => closedCalls };
}

const turn = (id: string, status: 'inProgress' | 'completed' | 'interrupted' | 'failed') => ({
  id,
  items: [],
  status,
  error: null,
  startedAt: 1_700_000_000,
  completedAt: status === 'inProgress' ? null : 1_700_000_005,
  durationMs: status === 'inProgress' ? null : 5000,
});

describe('RolloutRecorder', () => {
  it('writes only lines of the rollout schema, each event_msg valid for its kind, numbered from nextOrdinal', async () => {
    const { recorder, writer, json } = makeRecorder({ nextOrdinal: 7 });
    const session = new ScriptedSession('thr-1', recorder);
    await scriptEveryKind(session);
    await recorder.close();

    const problems = writer.lines.flatMap((line, i) => {
      const parsed = parseRolloutLine(line);
      if (!parsed.ok) return [`line ${i}: ${parsed.error}`];
      if (parsed.line.type !== 'event_msg') return [];
      const event = parseWrittenEvent(parsed.line.payload);
      return event.ok ? [] : [`line ${i}: ${event.error}`];
    });
    expect(problems).toEqual([]);
    const lines = json();
    expect(lines.map((l) => l.ordinal)).toEqual(lines.map((_, i) => i + 7));
    const written = new Set(lines.filter((l) => l.type === 'event_msg').map((l) => l.payload.type));
    // The script exercises every kind Weft writes except a rollback, its undoing, a turn's diff and a hook run
    // (their own tests below) and Weft-only item fields (items whose Codex form says it all).
    const notScripted = new Set([
      'weft_hook_completed',
      'thread_rolled_back',
      'weft_rollback_undone',
      'weft_item_fields',
      'weft_turn_diff',
      'weft_thread_pinned',
      'weft_thread_group',
      'weft_thread_read_state',
      'weft_thread_moved',
    ]);
    expect([...written].sort()).toEqual(
      Object.keys(WrittenEventPayloads)
        .filter((k) => !notScripted.has(k))
        .sort(),
    );
  });

  it('records a hook run of a turn as it completes, and none outside a turn or still running', () => {
    const { recorder, json } = makeRecorder();
    const run = {
      id: 'pre-tool-use:0:/home/dev/.weft/hooks.json:call-1',
      eventName: 'preToolUse' as const,
      handlerType: 'command' as const,
      executionMode: 'sync' as const,
      scope: 'turn' as const,
      sourcePath: '/home/dev/.weft/hooks.json',
      source: 'user' as const,
      displayOrder: 0,
      status: 'blocked' as const,
      statusMessage: null,
      startedAt: 1_700_000_000,
      completedAt: 1_700_000_001,
      durationMs: 40,
      entries: [{ kind: 'feedback' as const, text: 'not allowed' }],
      weftCommand: '/bin/check',
      weftExitCode: 2,
      weftOutput: 'not allowed',
    };
    recorder.notification({ method: 'hook/started', params: { threadId: 'thr-1', turnId: 't1', run } });
    recorder.notification({ method: 'hook/completed', params: { threadId: 'thr-1', turnId: 't1', run } });
    recorder.notification({ method: 'hook/completed', params: { threadId: 'thr-1', turnId: null, run } });
    expect(json().map((l) => l.payload)).toEqual([{ type: 'weft_hook_completed', turn_id: 't1', run }]);
  });

  it('ignores deltas and retried errors, and records the error that ended a turn', () => {
    const { recorder, json } = makeRecorder();
    recorder.notification({
      method: 'item/agentMessage/delta',
      params: { threadId: 'thr-1', turnId: 't1', itemId: 'm1', delta: 'Hel' },
    });
    const error = { message: 'Reconnecting... 1/5', codexErrorInfo: null, additionalDetails: null };
    recorder.notification({ method: 'error', params: { threadId: 'thr-1', turnId: 't1', error, willRetry: true } });
    expect(json()).toEqual([]);
    const fatal = { message: 'stream closed', codexErrorInfo: 'responseStreamDisconnected', additionalDetails: null };
    recorder.notification({
      method: 'error',
      params: { threadId: 'thr-1', turnId: 't1', error: fatal, willRetry: false },
    });
    expect(json().map((l) => l.payload)).toEqual([
      { type: 'error', message: 'stream closed', codex_error_info: null, turn_id: 't1', weft_error: fatal },
    ]);
  });

  it('records an interrupted turn as turn_aborted and a finished one as task_complete with its last agent message', () => {
    const { recorder, json } = makeRecorder();
    recorder.notification({ method: 'turn/started', params: { threadId: 'thr-1', turn: turn('t1', 'inProgress') } });
    recorder.notification({
      method: 'item/completed',
      params: {
        threadId: 'thr-1',
        turnId: 't1',
        item: { type: 'agentMessage', id: 'm1', text: 'Done.', phase: null },
        completedAtMs: 1,
      },
    });
    recorder.notification({ method: 'turn/completed', params: { threadId: 'thr-1', turn: turn('t1', 'completed') } });
    recorder.notification({ method: 'turn/completed', params: { threadId: 'thr-1', turn: turn('t2', 'interrupted') } });
    const { items: _items, ...t1 } = turn('t1', 'completed');
    const { items: _items2, ...t2 } = turn('t2', 'interrupted');
    expect(
      json()
        .map((l) => l.payload)
        .filter((p) => p.type !== 'item_completed' && p.type !== 'weft_item_fields'),
    ).toEqual([
      {
        type: 'task_started',
        turn_id: 't1',
        weft_turn: { ...t1, status: 'inProgress', completedAt: null, durationMs: null },
      },
      { type: 'task_complete', turn_id: 't1', last_agent_message: 'Done.', weft_turn: t1 },
      { type: 'turn_aborted', turn_id: 't2', reason: 'interrupted', weft_turn: t2 },
    ]);
  });

  it("records a turn's last aggregated diff once as the turn ends, and none for a turn that changed nothing", () => {
    const { recorder, json } = makeRecorder();
    recorder.notification({ method: 'turn/started', params: { threadId: 'thr-1', turn: turn('t1', 'inProgress') } });
    recorder.notification({
      method: 'turn/diff/updated',
      params: { threadId: 'thr-1', turnId: 't1', diff: 'diff --git a/x b/x\n-1\n+2\n' },
    });
    recorder.notification({
      method: 'turn/diff/updated',
      params: { threadId: 'thr-1', turnId: 't1', diff: 'diff --git a/x b/x\n-1\n+3\n' },
    });
    expect(json().filter((l) => l.payload.type === 'weft_turn_diff')).toEqual([]);
    recorder.notification({ method: 'turn/completed', params: { threadId: 'thr-1', turn: turn('t1', 'completed') } });
    recorder.notification({ method: 'turn/started', params: { threadId: 'thr-1', turn: turn('t2', 'inProgress') } });
    recorder.notification({ method: 'turn/diff/updated', params: { threadId: 'thr-1', turnId: 't2', diff: '' } });
    recorder.notification({ method: 'turn/completed', params: { threadId: 'thr-1', turn: turn('t2', 'completed') } });
    expect(
      json()
        .map((l) => l.payload)
        .filter((p) => p.type === 'weft_turn_diff'),
    ).toEqual([{ type: 'weft_turn_diff', turn_id: 't1', diff: 'diff --git a/x b/x\n-1\n+3\n' }]);
  });

  it('records approvals as JSON (undefined fields dropped) and renames only when the name changes', () => {
    const { recorder, json, deltas } = makeRecorder({ name: 'Old' });
    recorder.approval({
      turnId: 't1',
      itemId: 'c1',
      kind: 'command',
      request: { command: 'ls', reason: undefined },
      decision: undefined,
    });
    recorder.recordName('Old');
    recorder.recordName('New');
    expect(json().map((l) => l.payload)).toEqual([
      {
        type: 'weft_approval',
        turn_id: 't1',
        item_id: 'c1',
        kind: 'command',
        request: { command: 'ls' },
        decision: null,
      },
      { type: 'thread_name_updated', thread_id: 'thr-1', thread_name: 'New' },
    ]);
    expect(deltas.map((d) => d.attributes?.name)).toEqual(['New']);
  });

  it('tells the index the first user message once, and nothing while the file is not saved', () => {
    const { recorder, writer, deltas } = makeRecorder();
    writer.created = false;
    const user = (id: string, text: string) => ({
      type: 'userMessage' as const,
      id,
      content: [{ type: 'text' as const, text }],
    });
    recorder.notification({
      method: 'item/completed',
      params: { threadId: 'thr-1', turnId: 't1', item: user('u1', 'Fix the parser'), completedAtMs: 1 },
    });
    expect(deltas).toEqual([]);
    writer.created = true;
    recorder.notification({
      method: 'item/completed',
      params: { threadId: 'thr-1', turnId: 't1', item: user('u2', 'And the lexer'), completedAtMs: 2 },
    });
    expect(deltas.map((d) => [d.preview, d.text])).toEqual([['Fix the parser', ['Fix the parser', 'And the lexer']]]);
  });

  it('records a rollback and fsyncs; close closes the writer and tells the sink once', async () => {
    const { recorder, writer, json, closedCalls } = makeRecorder();
    await recorder.recordRollback(2);
    expect(json().map((l) => l.payload)).toEqual([{ type: 'thread_rolled_back', num_turns: 2 }]);
    expect(parseWrittenEvent(json()[0]?.payload).ok).toBe(true);
    expect(writer.syncs).toBe(1);
    await recorder.recordRollback(1, 'rec-1');
    await recorder.recordRollbackUndone(1);
    expect(
      json()
        .map((l) => l.payload)
        .slice(1),
    ).toEqual([
      { type: 'thread_rolled_back', num_turns: 1, weft_restore_record: 'rec-1' },
      { type: 'weft_rollback_undone', num_turns: 1 },
    ]);
    expect(json().every((l) => parseWrittenEvent(l.payload).ok)).toBe(true);
    expect(writer.syncs).toBe(3);
    await Promise.all([recorder.close(), recorder.close()]);
    expect(writer.closed).toBe(true);
    expect(closedCalls()).toBe(1);
  });
});
