// First pass over a rollout: the thread's structure without its bulk. Small lines (meta, turn boundaries,
// contexts, names, rollbacks) are parsed; big ones (history items, completed items) are only located, so a
// 50 MB thread is outlined in one quick read. `history.ts` and `turn-items.ts` then parse just the lines a
// caller asks for. What each event kind means (a turn's start or end, a rollback, an item, an attribute of
// the thread such as its name) is the table in thread-events.ts; the index scan reads rollouts through
// this outline too (`outlineSteps`).
//
// Turns: `turn_started` opens a turn and `turn_complete` / `turn_aborted` close it (Weft, newer Codex).
// Older Codex rollouts have no such events: a `turn_context` (or a user message outside any turn) opens a
// turn that the next one closes. `turn_context.turn_id` is the canonical turn id. A turn still open at the
// end of the file was cut short (crash, kill) and reads as interrupted. `thread_rolled_back {num_turns}`
// drops the last turns, both from the UI turns and from the model history; Weft names in it the checkpoint
// record of the files restored with it (`weft_restore_record`). `weft_rollback_undone {num_turns}` brings
// back the turns the last rollback dropped, when no turn began since (Redo of an undo with its files).
import {
  SessionMetaPayload,
  type ThreadTokenUsage,
  type TokenUsageBreakdown,
  type TurnError,
  type TurnStatus,
} from '../../src-preload/protocol';
import {
  ErrorEvent,
  ThreadRolledBackEvent,
  UserMessageEvent,
  WeftRollbackUndoneEvent,
  codexErrorInfoName,
  tokenUsageFromEvent,
  usageByModelFromEvent,
} from './events';
import { Sniffer, forEachLine, lineSteps, readLines, stringFieldNear, type LineRef, type RawLine } from './line-reader';
import { parseLine, payloadType, type LooseLine } from './line-parse';
import { historyEntry, type HistoryRef } from './history';

export type { HistoryRef };
import { closeRollout, openRollout, sizeOf, type RolloutFd } from './rollout-source';
import { recordedTurnContext, type RecordedTurnContext } from './turn-context';
import { codexItemType, userMessageText } from './codex-thread-items';
import { threadPreview } from './preview';
import {
  DEFAULT_ATTRIBUTES,
  eventMeaning,
  movesUpdatedAt,
  type MessageText,
  type ThreadAttributes,
} from './thread-events';
import { yieldToLoop } from '../util/slicer';

export interface TurnOutline {
  id: string;
  /** Opened by `turn_started` (else implied by a turn_context or a user message). */
  explicit: boolean;
  /** Its turn_started line and its turn_complete / turn_aborted line (they hold Weft's record of the turn). */
  startRef: LineRef | null;
  endRef: LineRef | null;
  startedAtMs: number | null;
  endedAtMs: number | null;
  ended: boolean;
  status: TurnStatus;
  error: TurnError | null;
  /** Event lines that become items, approvals, plans and errors of this turn. */
  itemRefs: LineRef[];
  /** The model history as it was when the turn began (for rollbacks). */
  historyMark: { refs: number; base: number };
  /** File offset just after the turn's last line. */
  endOffset: number;
}

export interface RolloutOutline {
  path: string;
  meta: SessionMetaPayload | null;
  /** File offset just after the first session_meta line (0 when there is none). */
  metaEnd: number;
  /** Live turns (after rollbacks), oldest first. */
  turns: TurnOutline[];
  /** Lines of the model history; it starts at `historyRefs[historyBase]` (a compaction) or at 0 when -1. */
  historyRefs: HistoryRef[];
  historyBase: number;
  lastTurnContext: RecordedTurnContext | null;
  tokenUsage: ThreadTokenUsage | null;
  /** `tokenUsage.total` by model, when the last token count says (Weft's; null in Codex's rollouts). */
  usageByModel: Record<string, TokenUsageBreakdown> | null;
  /** What the attribute events set (the name, …), as of the last line. */
  attributes: ThreadAttributes;
  preview: string;
  /** Unix ms of the newest line (0 when none has a valid timestamp). */
  updatedAtMs: number;
  firstTimestampMs: number;
  /** File offset just after the last complete line. */
  end: number;
  /** Bytes after `end` (a torn last line or a write in progress). */
  tailBytes: number;
  warnings: string[];
  /** The last rollback, until the rollout ends or a later one replaces it. */
  lastRollback: LastRollback | null;
}

/** What the last rollback dropped, while it can still be undone. */
export interface LastRollback {
  /** The checkpoint record of the files restored with it (a revert with its files); null without. */
  restoreRecord: string | null;
  /** The turns it dropped and the model history with them; null once a turn began after it. */
  dropped: { turns: TurnOutline[]; historyRefs: HistoryRef[]; historyBase: number } | null;
}

function timeMs(ts: string): number {
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : 0;
}

const TURN_ID_KEY = Buffer.from('"turn_id":"');

function messageOf(payload: unknown): string | null {
  const parsed = UserMessageEvent.safeParse(payload);
  return parsed.success ? parsed.data.message : null;
}

const ITEM_TYPE_KEY = Buffer.from('"item":{"type":"');

/**
 * Where an outline stood after its last complete line, before `finish` closed its open turn: with the
 * outline's fields, what continuing it over lines appended later needs (outline-snapshot.ts keeps it).
 */
export interface OutlineProgress {
  /** Index in `turns` of the turn still open (-1: none). */
  openIndex: number;
  /** Turns opened so far, rolled back ones too (names the next implied turn). */
  opened: number;
  tokenRef: LineRef | null;
  lastContext: LineRef | null;
  lastLine: LineRef | null;
  /** Lines read (for the line numbers of warnings). */
  lineNo: number;
  /** `warnings` found in the lines (finish adds the torn-tail one after). */
  lineWarnings: number;
}

/** A line whose event holds a message, as the outline saw it (for the index's search text). */
export interface MessageLine {
  readonly raw: RawLine;
  /** Whether its kind was read from its first bytes (else it was parsed in full). */
  readonly sniffed: boolean;
  /** Its payload, parsed on first use (undefined when the line is not JSON). */
  payload(): unknown;
  /** The `item.type` of an item_completed line. */
  itemType(): string | null;
  /** The turn it belongs to, null outside every turn. */
  readonly turn: TurnOutline | null;
}

/** Told of every line whose event the table says holds a message, once the outline has taken it in. */
export type MessageListener = (text: MessageText, line: MessageLine) => void;

class OutlineBuilder implements MessageLine {
  readonly o: RolloutOutline;
  private open: TurnOutline | null = null;
  private opened = 0;
  private tokenRef: LineRef | null = null;
  private lastContext: LineRef | null = null;
  private lastLine: LineRef | null = null;
  private lineNo = 0;
  private readonly sniffer = new Sniffer();
  /** The line being read, whether it was sniffed, and its parse (undefined: not parsed yet; null: not JSON). */
  raw: RawLine = { buf: Buffer.alloc(0), start: 0, end: 0, offset: 0 };
  sniffed = false;
  private parsed: LooseLine | null | undefined = undefined;

  constructor(
    path: string,
    private readonly withHistory: boolean,
    from?: { outline: RolloutOutline; progress: OutlineProgress },
    private readonly messages?: MessageListener,
  ) {
    if (from) {
      // Continuing a saved outline over the lines written after it (its history lines are only located).
      const p = from.progress;
      this.o = from.outline;
      this.open = this.o.turns[p.openIndex] ?? null;
      this.opened = p.opened;
      this.tokenRef = p.tokenRef;
      this.lastContext = p.lastContext;
      this.lastLine = p.lastLine;
      this.lineNo = p.lineNo;
      return;
    }
    this.o = {
      path,
      meta: null,
      metaEnd: 0,
      turns: [],
      historyRefs: [],
      historyBase: -1,
      lastTurnContext: null,
      tokenUsage: null,
      usageByModel: null,
      attributes: DEFAULT_ATTRIBUTES,
      preview: '',
      updatedAtMs: 0,
      firstTimestampMs: 0,
      end: 0,
      tailBytes: 0,
      warnings: [],
      lastRollback: null,
    };
  }

  line(raw: RawLine): void {
    this.lineNo++;
    if (raw.end === raw.start) return;
    this.raw = raw;
    this.parsed = undefined;
    let type: string;
    let event: string | null;
    let mirror: boolean;
    if (this.sniffer.sniff(raw.buf, raw.start, raw.end)) {
      this.sniffed = true;
      ({ type, event, mirror } = this.sniffer);
    } else {
      this.sniffed = false;
      const p = parseLine(raw);
      if (!p.ok) {
        this.o.warnings.push(`${this.o.path}: line ${this.lineNo} skipped: ${p.error}`);
        return;
      }
      if (p.recovered)
        this.o.warnings.push(`${this.o.path}: line ${this.lineNo} began with a torn line, which was skipped`);
      this.parsed = p.line;
      type = p.line.type;
      const payload = p.line.payload;
      event = type === 'event_msg' ? payloadType(payload) : null;
      mirror =
        typeof payload === 'object' && payload !== null && 'weft_mirror' in payload && payload.weft_mirror === true;
    }
    const length = raw.end - raw.start;
    // The thread's updatedAt is the time of its last line that changed it (a read mark does not).
    if (type !== 'event_msg' || event === null || movesUpdatedAt(event)) this.lastLine = { offset: raw.offset, length };
    if (this.o.firstTimestampMs === 0) this.o.firstTimestampMs = this.ms();
    const lineEnd = raw.offset + length + 1;
    const current = this.open;
    switch (type) {
      case 'session_meta':
        if (this.o.meta === null) {
          const payload = this.payload();
          const meta = SessionMetaPayload.safeParse(payload);
          if (meta.success) {
            this.o.meta = meta.data;
            this.o.metaEnd = lineEnd;
          } else if (payload !== undefined) {
            this.o.warnings.push(`${this.o.path}: line ${this.lineNo}: session_meta unreadable, ignored`);
          }
        }
        break;
      case 'response_item':
      case 'compacted': {
        const compacted = type === 'compacted';
        const ref: HistoryRef = { offset: raw.offset, length, compacted };
        if (this.withHistory) {
          const payload = this.payload();
          if (payload === undefined) break;
          const entry = historyEntry(payload, compacted);
          if (!entry) {
            this.o.warnings.push(`${this.o.path}: line ${this.lineNo}: history item unreadable, skipped`);
            break;
          }
          ref.entry = entry;
        }
        this.o.historyRefs.push(ref);
        if (compacted) this.o.historyBase = this.o.historyRefs.length - 1;
        break;
      }
      case 'turn_context':
        this.turnContext(raw.offset, length);
        break;
      case 'event_msg':
        if (event !== null) this.event(event, mirror, raw.offset, length);
        break;
      default:
        break;
    }
    if (current) current.endOffset = lineEnd;
    if (this.open) this.open.endOffset = lineEnd;
  }

  /** The current line's payload (parsed on first use; undefined when the line is not JSON). */
  payload(): unknown {
    if (this.parsed === undefined) {
      const p = parseLine(this.raw);
      this.parsed = p.ok ? p.line : null;
      if (!p.ok) this.o.warnings.push(`${this.o.path}: line ${this.lineNo} skipped: ${p.error}`);
    }
    return this.parsed?.payload;
  }

  /** The current line's time (unix ms, 0 when unreadable). */
  private ms(): number {
    if (this.sniffed) return timeMs(this.sniffer.timestamp(this.raw.buf));
    return this.parsed ? timeMs(this.parsed.timestamp) : 0;
  }

  private event(event: string, mirror: boolean, offset: number, length: number): void {
    const meaning = eventMeaning(event);
    switch (meaning.kind) {
      case 'turnStart': {
        const ms = this.ms();
        const id = this.turnId();
        const open = this.open;
        let turn: TurnOutline;
        if (
          open &&
          !open.explicit &&
          open.itemRefs.length === 0 &&
          (id === null || open.id === id || open.id.startsWith('turn-'))
        ) {
          // A turn_context written just before its turn_started: the same turn.
          turn = open;
          turn.explicit = true;
          if (id !== null) turn.id = id;
        } else {
          this.closeOpen('interrupted', ms);
          turn = this.openTurn(id, true, ms);
        }
        turn.startRef = { offset, length };
        return;
      }
      case 'turnEnd': {
        const turn = this.open;
        if (!turn) return;
        turn.endRef = { offset, length };
        this.end(turn, meaning.interrupted ? 'interrupted' : turn.error ? 'failed' : 'completed', this.ms());
        return;
      }
      case 'rollback': {
        const e = ThreadRolledBackEvent.safeParse(this.payload());
        if (e.success) this.rollback(e.data.num_turns, e.data.weft_restore_record ?? null);
        return;
      }
      case 'rollbackUndone': {
        const e = WeftRollbackUndoneEvent.safeParse(this.payload());
        if (e.success) this.undoRollback(e.data.num_turns);
        return;
      }
      case 'attribute':
        this.o.attributes = meaning.apply(this.o.attributes, this.payload());
        return;
      case 'tokenCount':
        this.tokenRef = { offset, length };
        return;
      case 'turnError': {
        const e = ErrorEvent.safeParse(this.payload());
        if (!e.success) return;
        const turn = this.ensureTurn();
        turn.error = e.data.weft_error ?? {
          message: e.data.message,
          codexErrorInfo: codexErrorInfoName(e.data.codex_error_info),
          additionalDetails: null,
        };
        turn.itemRefs.push({ offset, length });
        return;
      }
      case 'item':
        if (meaning.text !== null) this.previewFrom(meaning.text);
        if (!mirror) this.ensureTurn().itemRefs.push({ offset, length });
        if (meaning.text !== null) this.messages?.(meaning.text, this);
        return;
      case 'none':
        return;
    }
  }

  /** The thread's preview, from its first user message. */
  private previewFrom(text: MessageText): void {
    if (this.o.preview !== '') return;
    let message: string | null = null;
    if (text === 'userMessage') message = messageOf(this.payload());
    else if (text === 'codexItem' && this.itemType() === 'UserMessage') message = userMessageText(this.payload());
    if (message !== null) this.o.preview = threadPreview(message);
  }

  private turnContext(offset: number, length: number): void {
    const turnId = this.turnId();
    this.lastContext = { offset, length };
    const open = this.open;
    if (open && (open.explicit || turnId === open.id || open.itemRefs.length === 0)) {
      if (turnId) open.id = turnId;
      return;
    }
    if (open) this.end(open, 'completed', this.ms());
    this.openTurn(turnId, false, this.ms());
  }

  /** The `item.type` of the current item_completed line (read from its first bytes when it can be). */
  itemType(): string | null {
    const raw = this.raw;
    if (this.sniffed) {
      const type = stringFieldNear(raw.buf, raw.start, raw.end, ITEM_TYPE_KEY);
      if (type !== null) return type;
    }
    return codexItemType(this.payload());
  }

  /** `turn_id` of the current line's payload: read from its first bytes, else from the parsed payload. */
  private turnId(): string | null {
    const raw = this.raw;
    if (this.sniffed) {
      const id = stringFieldNear(raw.buf, raw.start, raw.end, TURN_ID_KEY);
      if (id !== null) return id;
    }
    const payload = this.payload();
    if (typeof payload !== 'object' || payload === null || !('turn_id' in payload)) return null;
    return typeof payload.turn_id === 'string' ? payload.turn_id : null;
  }

  get turn(): TurnOutline | null {
    return this.open;
  }

  private ensureTurn(): TurnOutline {
    return this.open ?? this.openTurn(null, false, this.ms());
  }

  private openTurn(id: string | null, explicit: boolean, ms: number): TurnOutline {
    this.opened++;
    // The thread went on: the turns a rollback dropped stay dropped (its restore record is still named).
    const last = this.o.lastRollback;
    if (last !== null) this.o.lastRollback = last.restoreRecord === null ? null : { ...last, dropped: null };
    const turn: TurnOutline = {
      id: id ?? `turn-${this.opened}`,
      explicit,
      startRef: null,
      endRef: null,
      startedAtMs: ms || null,
      endedAtMs: null,
      ended: false,
      status: 'inProgress',
      error: null,
      itemRefs: [],
      historyMark: { refs: this.o.historyRefs.length, base: this.o.historyBase },
      endOffset: 0,
    };
    this.o.turns.push(turn);
    this.open = turn;
    return turn;
  }

  private end(turn: TurnOutline, status: TurnStatus, ms: number): void {
    turn.ended = true;
    turn.status = status;
    turn.endedAtMs = ms || null;
    if (this.open === turn) this.open = null;
  }

  private closeOpen(status: TurnStatus, ms: number): void {
    if (this.open) this.end(this.open, status, ms);
  }

  private rollback(numTurns: number, restoreRecord: string | null): void {
    const n = Math.min(numTurns, this.o.turns.length);
    if (n <= 0) return;
    const first = this.o.turns[this.o.turns.length - n];
    if (!first) return;
    this.o.lastRollback = {
      restoreRecord,
      dropped: {
        turns: this.o.turns.slice(-n),
        historyRefs: this.o.historyRefs.slice(first.historyMark.refs),
        historyBase: this.o.historyBase,
      },
    };
    this.o.historyRefs.length = first.historyMark.refs;
    this.o.historyBase = first.historyMark.base;
    this.o.turns.length -= n;
    if (this.open && !this.o.turns.includes(this.open)) this.open = null;
  }

  /** Brings back what the last rollback dropped, when it dropped `numTurns` and no turn began since. */
  private undoRollback(numTurns: number): void {
    const dropped = this.o.lastRollback?.dropped;
    if (!dropped || dropped.turns.length !== numTurns) {
      this.o.warnings.push(`${this.o.path}: line ${this.lineNo}: no rollback of ${numTurns} turn(s) to undo, ignored`);
      return;
    }
    this.o.turns.push(...dropped.turns);
    this.o.historyRefs.push(...dropped.historyRefs);
    this.o.historyBase = dropped.historyBase;
    this.o.lastRollback = null;
  }

  /** The outline, and where it stood before this closed its open turn (to continue it later). */
  finish(fd: RolloutFd, end: number, tailBytes: number): { outline: RolloutOutline; progress: OutlineProgress } {
    const progress: OutlineProgress = {
      openIndex: this.open ? this.o.turns.indexOf(this.open) : -1,
      opened: this.opened,
      tokenRef: this.tokenRef,
      lastContext: this.lastContext,
      lastLine: this.lastLine,
      lineNo: this.lineNo,
      lineWarnings: this.o.warnings.length,
    };
    this.o.end = end;
    this.o.tailBytes = tailBytes;
    if (tailBytes > 0) {
      this.o.warnings.push(
        `${this.o.path}: the last ${tailBytes} byte(s) are not a complete line (torn write), ignored`,
      );
    }
    const open = this.open;
    if (open) {
      // A turn still open at the end of the file was cut short; an implied (old Codex) turn just ended.
      open.status = open.explicit ? 'interrupted' : 'completed';
      open.ended = true;
      this.open = null;
    }
    const last = this.lastLine;
    const tail: LineRef[] = [this.tokenRef, this.lastContext, last].filter((r): r is LineRef => r !== null);
    readLines(fd, tail, (raw) => {
      const p = parseLine(raw);
      if (!p.ok) return;
      if (raw.offset === this.tokenRef?.offset) {
        this.o.tokenUsage = tokenUsageFromEvent(p.line.payload);
        this.o.usageByModel = usageByModelFromEvent(p.line.payload);
      }
      if (raw.offset === this.lastContext?.offset) this.o.lastTurnContext = recordedTurnContext(p.line.payload);
      if (raw.offset === last?.offset) this.o.updatedAtMs = timeMs(p.line.timestamp);
    });
    return { outline: this.o, progress };
  }
}

/**
 * Outlines an open rollout file (its contents up to the last complete line). With `history`, the model
 * history lines are parsed on the way (one read of the file for a resume) instead of only located.
 */
export function outlineFd(fd: RolloutFd, path: string, options: { history?: boolean } = {}): RolloutOutline {
  return continueOutline(fd, path, options, null).outline;
}

/** How long an outline may hold the event loop before it gives it back (between chunks of the file). */
const SLICE_MS = 15;

/** A saved outline to continue: the outline as it was after its last line, and the builder's progress. */
export interface OutlineStart {
  outline: RolloutOutline;
  progress: OutlineProgress;
}

/** An outline, with where its reading started (0, or the end of the saved outline it continued). */
export interface ContinuedOutline {
  outline: RolloutOutline;
  progress: OutlineProgress;
  readFrom: number;
}

/**
 * Outlines from a saved outline's end (`start`), reading only the lines appended since, or the whole file
 * when `start` is null. The model history is only located then (`history` applies to a whole read).
 */
export function continueOutline(
  fd: RolloutFd,
  path: string,
  options: { history?: boolean },
  start: OutlineStart | null,
): ContinuedOutline {
  const { builder, from } = begin(path, options, start);
  const { end, tailBytes } = forEachLine(fd, from, (raw) => builder.line(raw), { sizeHint: sizeOf(fd) });
  return finished(builder, fd, end, tailBytes, from);
}

/**
 * `continueOutline` that gives the event loop back between chunks once it has held it for a slice, so
 * outlining a big thread in the desktop app's main process never freezes its windows.
 */
export async function continueOutlineAsync(
  fd: RolloutFd,
  path: string,
  options: { history?: boolean },
  start: OutlineStart | null,
): Promise<ContinuedOutline> {
  const { builder, from } = begin(path, options, start);
  const steps = lineSteps(fd, from, (raw) => builder.line(raw), { sizeHint: sizeOf(fd) });
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return finished(builder, fd, step.value.end, step.value.tailBytes, from);
    if (performance.now() - sliceStart >= SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}

/**
 * A whole outline of an open file as a stepwise pass (it pauses after each chunk read, see `lineSteps`),
 * telling `messages` of every line that holds a message: the index scan's one read of a rollout.
 */
export function* outlineSteps(
  fd: RolloutFd,
  path: string,
  messages: MessageListener,
): Generator<void, ContinuedOutline> {
  const builder = new OutlineBuilder(path, false, undefined, messages);
  const { end, tailBytes } = yield* lineSteps(fd, 0, (raw) => builder.line(raw), { sizeHint: sizeOf(fd) });
  return finished(builder, fd, end, tailBytes, 0);
}

function begin(
  path: string,
  options: { history?: boolean },
  start: OutlineStart | null,
): { builder: OutlineBuilder; from: number } {
  if (start === null || options.history === true)
    return { builder: new OutlineBuilder(path, options.history === true), from: 0 };
  return { builder: new OutlineBuilder(path, false, start), from: start.outline.end };
}

function finished(
  builder: OutlineBuilder,
  fd: RolloutFd,
  end: number,
  tailBytes: number,
  from: number,
): ContinuedOutline {
  return { ...builder.finish(fd, end, tailBytes), readFrom: from };
}

/** The outline of the rollout at `path`, giving the event loop back while it reads (see `continueOutlineAsync`). */
export async function outlineFileAsync(path: string): Promise<RolloutOutline> {
  const { fd, warnings } = openRollout(path);
  try {
    const { outline } = await continueOutlineAsync(fd, path, {}, null);
    outline.warnings.unshift(...warnings);
    return outline;
  } finally {
    closeRollout(fd);
  }
}
