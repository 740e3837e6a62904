// The session's side of a thread's rollout: the agent session reports what happens, the recorder decides
// what a resumed thread needs and writes it (line kinds and event payloads: see events.ts).
import { JsonValue } from '../../src-preload/protocol';
import type {
  ResponseItem,
  RolloutEventInput,
  RolloutItemInput,
  ServerNotification,
  ThreadItem,
  ThreadTokenUsage,
  Turn,
  TurnStatus,
  WeftDiffCut,
} from '../../src-preload/protocol';
import { toCodexItem, weftOnlyFields } from './codex-thread-items';
import { tokenCountPayload, type ApprovalKind } from './events';
import { appendSessionIndex } from './session-index';
import { threadPreview, userItemText } from './preview';
import { lineTimestamp } from './paths';
import type { RolloutWriter } from './rollout-writer';
import { jsonPieces } from '../util/json-pieces';
import {
  applyAttributeEvent,
  movesUpdatedAt,
  sameAttributes,
  type AttributeEventInput,
  type ThreadAttributes,
} from './thread-events';
import { turnContextPayload, type TurnContextInput } from './turn-context';

/** Where a session writes its history as it happens (the core's view of the thread store's recorder). */
export interface SessionRecorder {
  /** The rollout file (the thread's `transcript_path` for hooks); absent for a recorder that keeps none. */
  readonly path?: string;
  /** Items appended to the model-visible history, in order. */
  responseItems(items: ResponseItem[]): void;
  /**
   * Every notification the session emits; the recorder persists what a resumed thread needs (item/completed
   * with the full ThreadItem, turn/started, turn/completed, thread/tokenUsage/updated, error (willRetry=false),
   * turn/plan/updated, thread/name/updated), and ignores deltas.
   */
  notification(n: ServerNotification): void;
  /** Approval asked and answered: persisted so a resumed thread shows it. */
  approval(record: { turnId: string; itemId: string; kind: ApprovalKind; request: unknown; decision: unknown }): void;
  turnContext(ctx: TurnContextInput): void;
  compacted(ctx: { message: string; replacementHistory: ResponseItem[] }): void;
  /** The turn ended: fsync. Rejects (with a `RolloutWriteError`) when what was recorded is not on disk. */
  turnEnded(): Promise<void>;
  /** Fsyncs what was recorded so far (a turn's first input); rejects as `turnEnded` does. */
  durable(): Promise<void>;
  close(): Promise<void>;
}

/** What the index learns from a recorder (never blocks or fails the recording). */
export interface IndexDelta {
  updatedAt: Date;
  /** The first user message, when this is it. */
  preview?: string;
  /** Set when an attribute changed (the name, …): all of them as they are now. */
  attributes?: ThreadAttributes;
  tokenUsage?: ThreadTokenUsage;
  model?: string;
  lastTurnStatus?: TurnStatus;
  /** User and agent text recorded since the previous delta, for full-text search. */
  text: string[];
}

export interface RecorderSink {
  update(delta: IndexDelta): void;
  /** The recorder closed (its lock is released). */
  closed(): void;
}

export interface RecorderOptions {
  threadId: string;
  /** The `ordinal` of the next line written (one more than the file's last; 1 after a new file's session_meta). */
  nextOrdinal: number;
  /** A rename is also appended to this `session_index.jsonl` (where Codex looks for names); null: not. */
  sessionIndex?: string | null;
  now: () => Date;
  sink: RecorderSink;
  /** Whether the thread already has a first user message (a resumed or forked thread). */
  hasPreview: boolean;
  /** The thread's attributes as its file has them so far. */
  attributes: ThreadAttributes;
}

/** What the recorder needs of its file: a `RolloutWriter`, or a fake in tests. */
export type RecorderWriter = Pick<
  RolloutWriter,
  'path' | 'created' | 'unsaved' | 'append' | 'written' | 'durable' | 'sync' | 'close'
>;

/** Turns a session's reports into rollout lines for one `RolloutWriter`. */
export class RolloutRecorder implements SessionRecorder {
  private hasPreview: boolean;
  private recorded: ThreadAttributes;
  private delta: IndexDelta;
  private lastAgentMessage = new Map<string, string>();
  /** Each running turn's latest aggregated diff, recorded once as the turn ends. */
  private turnDiffs = new Map<string, { diff: string; cut?: WeftDiffCut }>();
  private closing: Promise<void> | null = null;
  /** When the last line was written. */
  private lastWriteAt: Date | null = null;
  /**
   * When the last line that changed the thread was written (null: none by this recorder): its `updatedAt`,
   * as a rescan of the file would find it.
   */
  private changedAt: Date | null = null;
  /** Lines were written since the index last heard from this recorder. */
  private dirty = false;
  private ordinal: number;

  constructor(
    private readonly writer: RecorderWriter,
    private readonly options: RecorderOptions,
  ) {
    this.hasPreview = options.hasPreview;
    this.recorded = options.attributes;
    this.delta = { updatedAt: new Date(0), text: [] };
    this.ordinal = options.nextOrdinal;
  }

  get path(): string {
    return this.writer.path;
  }

  responseItems(items: ResponseItem[]): void {
    this.write(items.map((payload) => ({ type: 'response_item', payload })));
  }

  notification(n: ServerNotification): void {
    switch (n.method) {
      case 'turn/started':
        this.event({ type: 'task_started', turn_id: n.params.turn.id, weft_turn: withoutItems(n.params.turn) });
        return;
      case 'turn/completed':
        this.turnCompleted(n.params.turn);
        return;
      case 'item/completed':
        this.itemCompleted(n.params.turnId, n.params.item);
        return;
      case 'thread/tokenUsage/updated':
        this.event(tokenCountPayload(n.params.tokenUsage, n.params.weftCost));
        this.delta.tokenUsage = n.params.tokenUsage;
        return;
      case 'error':
        if (n.params.willRetry) return;
        this.event({
          type: 'error',
          message: n.params.error.message,
          codex_error_info: null,
          turn_id: n.params.turnId,
          weft_error: n.params.error,
        });
        return;
      case 'turn/plan/updated':
        this.event({
          type: 'weft_plan_updated',
          turn_id: n.params.turnId,
          explanation: n.params.explanation ?? null,
          plan: n.params.plan,
        });
        return;
      case 'thread/name/updated':
        this.recordName(n.params.name);
        return;
      case 'turn/diff/updated':
        this.turnDiffs.set(n.params.turnId, { diff: n.params.diff, cut: n.params.weftDiffCut });
        return;
      case 'hook/completed':
        // A run outside a turn (SessionEnd) belongs to no turn to show it in.
        if (n.params.turnId !== null && n.params.turnId !== undefined)
          this.event({ type: 'weft_hook_completed', turn_id: n.params.turnId, run: n.params.run });
        return;
      case 'warning':
      case 'hook/started':
      case 'thread/started':
      case 'thread/status/changed':
      case 'thread/archived':
      case 'thread/unarchived':
      case 'thread/closed':
      case 'item/started':
      case 'item/agentMessage/delta':
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/summaryPartAdded':
      case 'item/reasoning/textDelta':
      case 'item/commandExecution/outputDelta':
      case 'item/fileChange/outputDelta':
      case 'serverRequest/resolved':
      case 'item/mcpToolCall/progress':
      case 'command/exec/outputDelta':
      case 'mcpServer/startupStatus/updated':
      case 'mcpServer/oauthLogin/completed':
      case 'weft/git/progress':
      case 'weft/threads/indexed':
      case 'weft/environment/status':
      case 'weft/environment/install/progress':
      case 'weft/automations/runEnded':
      case 'weft/turn/diffChanged':
      case 'weft/browser/live/frame':
      case 'weft/browser/live/closed':
        return;
      case 'weft/thread/turnsRestored':
        // In the rollout already: store.undoRollback appends its weft_rollback_undone line.
        return;
      case 'thread/readState/changed':
        // In the rollout already: the host records each mark (`recordAttribute`) before it tells of it.
        return;
      case 'thread/reverted':
        // The revert is in the rollout already: store.rollback appends its thread_rolled_back line.
        return;
    }
  }

  approval(record: { turnId: string; itemId: string; kind: ApprovalKind; request: unknown; decision: unknown }): void {
    this.event({
      type: 'weft_approval',
      turn_id: record.turnId,
      item_id: record.itemId,
      kind: record.kind,
      request: asJson(record.request),
      decision: asJson(record.decision),
    });
  }

  turnContext(ctx: TurnContextInput): void {
    this.write([{ type: 'turn_context', payload: turnContextPayload(ctx) }]);
    this.delta.model = ctx.model;
  }

  compacted(ctx: { message: string; replacementHistory: ResponseItem[] }): void {
    this.write([{ type: 'compacted', payload: { message: ctx.message, replacement_history: ctx.replacementHistory } }]);
  }

  turnEnded(): Promise<void> {
    return this.durable();
  }

  async durable(): Promise<void> {
    try {
      await this.writer.durable();
    } finally {
      this.flushDelta();
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.writer.close();
      this.flushDelta();
      this.options.sink.closed();
    })();
    return this.closing;
  }

  /** Records a rename unless it is the current name (the store and the session may both report it). */
  recordName(name: string | null): void {
    this.recordAttribute({ type: 'thread_name_updated', thread_id: this.options.threadId, thread_name: name });
  }

  /** The thread's attributes as recorded so far. */
  get attributes(): ThreadAttributes {
    return this.recorded;
  }

  /**
   * Records an attribute event (see thread-events.ts) unless it changes nothing, and tells the index. A
   * rename also goes to Codex's session index.
   */
  recordAttribute(event: AttributeEventInput): void {
    const next = applyAttributeEvent(this.recorded, event);
    if (sameAttributes(next, this.recorded)) return;
    this.recorded = next;
    this.event(event, movesUpdatedAt(event.type));
    if (event.type === 'thread_name_updated' && this.options.sessionIndex)
      appendSessionIndex(this.options.sessionIndex, this.options.threadId, next.name, this.options.now());
    this.delta.attributes = next;
    this.flushDelta();
  }

  /** Resolves once every line recorded so far was handed to the OS (not fsynced; see `RolloutWriter`). */
  written(): Promise<void> {
    return this.writer.written();
  }

  /** Fsyncs what was recorded and tells the index. */
  async sync(): Promise<void> {
    await this.writer.sync();
    this.flushDelta();
  }

  /**
   * Records that the last `numTurns` turns are dropped (with `restoreRecord`, the checkpoint record of the
   * files restored with them), then fsyncs.
   */
  async recordRollback(numTurns: number, restoreRecord: string | null = null): Promise<void> {
    this.event({
      type: 'thread_rolled_back',
      num_turns: numTurns,
      ...(restoreRecord === null ? {} : { weft_restore_record: restoreRecord }),
    });
    await this.writer.sync();
    this.flushDelta();
  }

  /** Records that the `numTurns` turns the last rollback dropped are back, then fsyncs. */
  async recordRollbackUndone(numTurns: number): Promise<void> {
    this.event({ type: 'weft_rollback_undone', num_turns: numTurns });
    await this.writer.sync();
    this.flushDelta();
  }

  private turnCompleted(turn: Turn): void {
    const latest = this.turnDiffs.get(turn.id);
    this.turnDiffs.delete(turn.id);
    if (latest !== undefined && latest.diff !== '') {
      const { diff, cut } = latest;
      this.event({ type: 'weft_turn_diff', turn_id: turn.id, diff, ...(cut === undefined ? {} : { cut }) });
    }
    const weftTurn = withoutItems(turn);
    if (turn.status === 'interrupted') {
      this.event({ type: 'turn_aborted', turn_id: turn.id, reason: 'interrupted', weft_turn: weftTurn });
    } else {
      const last = this.lastAgentMessage.get(turn.id) ?? null;
      this.event({ type: 'task_complete', turn_id: turn.id, last_agent_message: last, weft_turn: weftTurn });
    }
    this.lastAgentMessage.delete(turn.id);
    this.delta.lastTurnStatus = turn.status;
  }

  private itemCompleted(turnId: string, item: ThreadItem): void {
    // Codex's form where it has one (Codex reads it), plus what only Weft knows; else Weft's own line.
    const codex = toCodexItem(item);
    const lines: RolloutItemInput[] = [];
    if (codex) {
      lines.push({
        type: 'event_msg',
        payload: { type: 'item_completed', thread_id: this.options.threadId, turn_id: turnId, item: codex },
      });
      const fields = weftOnlyFields(item, codex);
      if (fields)
        lines.push({
          type: 'event_msg',
          payload: { type: 'weft_item_fields', turn_id: turnId, item_id: item.id, fields },
        });
    } else {
      lines.push({ type: 'event_msg', payload: { type: 'weft_item_completed', turn_id: turnId, item } });
    }
    if (item.type === 'userMessage') {
      const message = userItemText(item);
      this.delta.text.push(message);
      const preview = this.hasPreview ? '' : threadPreview(message);
      if (preview !== '') {
        this.hasPreview = true;
        this.delta.preview = preview;
      }
    } else if (item.type === 'agentMessage') {
      this.lastAgentMessage.set(turnId, item.text);
      this.delta.text.push(item.text);
    }
    this.write(lines);
    if (this.delta.preview !== undefined) this.flushDelta();
  }

  /** `changes`: the line changes the thread as its `updatedAt` tells (see thread-events.ts). */
  private event(payload: RolloutEventInput, changes = true): void {
    this.write([{ type: 'event_msg', payload }], changes);
  }

  private write(entries: readonly RolloutItemInput[], changes = true): void {
    if (entries.length === 0) return;
    const at = this.options.now();
    this.lastWriteAt = at;
    if (changes) this.changedAt = at;
    this.dirty = true;
    const timestamp = lineTimestamp(at);
    // Serialized by the writer at the end of this event-loop turn, a slice at a time (neither a response of
    // thousands of items nor one item holding a 4 MB patch holds the loop: a line comes in pieces); what is
    // recorded is not changed afterwards (it was sent to clients).
    this.writer.append(
      entries.map(({ type, payload }) => {
        const line = { timestamp, ordinal: this.ordinal++, type, payload };
        return () => jsonPieces(line);
      }),
    );
  }

  /**
   * Hands what the index should learn to the sink (when lines were written since the last time). Not while
   * the file lacks recorded lines: the index describes the file, and learns it all once the lines are in.
   */
  private flushDelta(): void {
    const at = this.lastWriteAt;
    if (!this.dirty || at === null || !this.writer.created || this.writer.unsaved !== null) return;
    const delta = this.delta;
    // Lines that do not change the thread leave its updatedAt as it was (the index keeps the later one).
    const changed = this.changedAt ?? new Date(0);
    delta.updatedAt = changed;
    this.delta = { updatedAt: changed, text: [] };
    this.dirty = false;
    this.options.sink.update(delta);
  }
}

/** A wire object as JSON would carry it (undefined fields dropped); null when it is not JSON at all. */
function asJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  const parsed = JsonValue.safeParse(value);
  if (parsed.success) return parsed.data;
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? null : JsonValue.catch(null).parse(JSON.parse(text));
}

function withoutItems(turn: Turn): Omit<Turn, 'items'> {
  return {
    id: turn.id,
    status: turn.status,
    error: turn.error,
    startedAt: turn.startedAt,
    completedAt: turn.completedAt,
    durationMs: turn.durationMs,
  };
}
