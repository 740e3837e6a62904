// What the index keeps about one rollout, read in one streaming pass: the head for the session_meta, then
// a sniff of every line (see line-reader.ts) that parses only the few lines the index needs — user and agent
// messages for search, the name, and the last token count, turn context and turn end.
import { fstatSync } from 'node:fs';
import { basename } from 'node:path';
import { SessionMetaPayload, type RolloutWeftWorktree, type TurnStatus } from '../../src-preload/protocol';
import {
  AgentMessageEvent,
  ThreadNameUpdatedEvent,
  TurnEndedEvent,
  UserMessageEvent,
  tokenUsageFromEvent,
} from './events';
import { codexItemType, codexMessageText } from './codex-thread-items';
import {
  Sniffer,
  jsonStringNear,
  lineSteps,
  readLines,
  stringFieldNear,
  type LineRef,
  type RawLine,
  type ScanEnd,
} from './line-reader';
import { parseLine, payloadType } from './line-parse';
import { createdAtMs, forkedAtTurnIdOf, rolloutWorktreeOf, threadOf } from './loader';
import type { RolloutOutline } from './outline';
import { threadPreview } from './preview';
import { parseRolloutFileName } from './paths';
import { closeRollout, openRollout, ownFd, sizeOf, type RolloutFd } from './rollout-source';
import { recordedTurnContext } from './turn-context';

/**
 * Most message text indexed per thread by a full scan. Threads bigger than a few MB (long agent runs)
 * have their first 512 KB of user and agent text searchable; the rest of such a scan is not parsed, which
 * keeps a cold build of thousands of threads within seconds. Text recorded live is appended per turn.
 */
export const TEXT_CAP_CHARS = 512 * 1024;

export type ThreadOrigin = 'weft' | 'codex';

/** One row of the index, plus its search text. Times in unix ms. */
export interface ThreadSummary {
  id: string;
  path: string;
  origin: ThreadOrigin;
  fileSize: number;
  fileMtimeMs: number;
  createdAtMs: number;
  updatedAtMs: number;
  cwd: string;
  preview: string;
  name: string | null;
  model: string | null;
  modelProvider: string;
  source: string;
  cliVersion: string;
  archived: boolean;
  forkedFromId: string | null;
  forkedAtTurnId: string | null;
  gitSha: string | null;
  gitBranch: string | null;
  gitOriginUrl: string | null;
  tokensTotal: number;
  tokensInput: number;
  tokensOutput: number;
  lastTurnStatus: TurnStatus | null;
  /** The session_meta's `weft_worktree`, or null. */
  weftWorktree: RolloutWeftWorktree | null;
  text: string;
}

function timeMs(ts: string): number {
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : 0;
}

const MESSAGE_KEY = Buffer.from('"message":"');
const ITEM_TYPE_KEY = Buffer.from('"item":{"type":"');

/** The `message` of a user_message / agent_message line: read straight from the line when it can be. */
function messageOf(
  raw: RawLine,
  sniffed: boolean,
  payload: unknown,
  schema: typeof UserMessageEvent | typeof AgentMessageEvent,
): string | null {
  if (sniffed) {
    const direct = jsonStringNear(raw.buf, raw.start, raw.end, MESSAGE_KEY);
    if (direct !== null) return direct;
  }
  const e = schema.safeParse(sniffed ? payloadOf(raw) : payload);
  return e.success ? e.data.message : null;
}

function payloadOf(raw: RawLine | null): unknown {
  if (!raw) return undefined;
  const p = parseLine(raw);
  return p.ok ? p.line.payload : undefined;
}

/** Reads what the index needs from a rollout. Never throws on content; throws only when the file cannot be read. */
export function summarizeRollout(path: string, options: SummarizeOptions): ThreadSummary {
  const { fd } = openRollout(path);
  try {
    const steps = summarizeSteps(fd, path, options);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  } finally {
    closeRollout(fd);
  }
}

export interface SummarizeOptions {
  archived: boolean;
  origin: ThreadOrigin;
  /** Another reader of the same lines (an outline made in the same pass), told each line and the end. */
  alongside?: LineReader;
}

/** What reads a rollout's lines alongside the summary: every line (empty ones too), then where they ended. */
export interface LineReader {
  line(raw: RawLine): void;
  end(fd: RolloutFd, scan: ScanEnd): void;
}

/**
 * `summarizeRollout` of an open file, pausing after each megabyte read so big rollouts are indexed without
 * a long stall. The caller opens and closes `fd`.
 */
export function* summarizeSteps(
  fd: RolloutFd,
  path: string,
  options: SummarizeOptions,
): Generator<void, ThreadSummary> {
  // The thread's own file says when it changed; a fork's chain is read as one.
  const stat = fstatSync(ownFd(fd));
  let meta: SessionMetaPayload | null = null;
  let preview = '';
  let name: string | null = null;
  let updatedAtMs = 0;
  let firstMs = 0;
  let lastOffset = 0;
  let textChars = 0;
  const text: string[] = [];
  let lastToken: LineRef | null = null;
  let lastContext: LineRef | null = null;
  let lastEnd: LineRef | null = null;
  let lastStatus: TurnStatus | null = null;
  const take = (message: string): void => {
    if (textChars >= TEXT_CAP_CHARS || message === '') return;
    const piece = message.slice(0, TEXT_CAP_CHARS - textChars);
    text.push(piece);
    textChars += piece.length;
  };
  const sniffer = new Sniffer();
  let lastLength = -1;
  const alongside = options.alongside;
  const scan = yield* lineSteps(
    fd,
    0,
    (raw) => {
      alongside?.line(raw);
      if (raw.end === raw.start) return;
      const s = sniffer.sniff(raw.buf, raw.start, raw.end);
      let type: string;
      let event: string | null;
      let payload: unknown;
      if (s) {
        ({ type, event } = sniffer);
        if (firstMs === 0) firstMs = timeMs(sniffer.timestamp(raw.buf));
      } else {
        const p = parseLine(raw);
        if (!p.ok) return;
        ({ type, payload } = p.line);
        event = type === 'event_msg' ? payloadType(payload) : null;
        if (firstMs === 0) firstMs = timeMs(p.line.timestamp);
      }
      lastLength = raw.end - raw.start;
      lastOffset = raw.offset;
      if (type === 'session_meta') {
        if (meta === null) {
          const m = SessionMetaPayload.safeParse(s ? payloadOf(raw) : payload);
          if (m.success) meta = m.data;
        }
        return;
      }
      if (type === 'turn_context') {
        lastContext = { offset: raw.offset, length: raw.end - raw.start };
        return;
      }
      if (type !== 'event_msg' || event === null) return;
      switch (event) {
        case 'user_message':
          if (preview === '' || textChars < TEXT_CAP_CHARS) {
            const message = messageOf(raw, s, payload, UserMessageEvent);
            if (message === null) return;
            if (preview === '') preview = threadPreview(message);
            take(message);
          }
          return;
        case 'agent_message':
          if (textChars < TEXT_CAP_CHARS) {
            const message = messageOf(raw, s, payload, AgentMessageEvent);
            if (message !== null) take(message);
          }
          return;
        case 'item_completed': {
          // Codex 0.169 (and Weft) record messages as items; only messages are parsed.
          const kind = s ? stringFieldNear(raw.buf, raw.start, raw.end, ITEM_TYPE_KEY) : codexItemType(payload);
          const user = kind === 'UserMessage';
          if (!(user || kind === 'AgentMessage') || (textChars >= TEXT_CAP_CHARS && !(user && preview === ''))) return;
          const message = codexMessageText(s ? payloadOf(raw) : payload);
          if (message === null) return;
          if (user && preview === '') preview = threadPreview(message);
          take(message);
          return;
        }
        case 'thread_name_updated': {
          const e = ThreadNameUpdatedEvent.safeParse(s ? payloadOf(raw) : payload);
          if (e.success) name = e.data.thread_name ?? null;
          return;
        }
        case 'token_count':
          lastToken = { offset: raw.offset, length: raw.end - raw.start };
          return;
        case 'turn_started':
        case 'task_started':
          lastStatus = 'inProgress';
          lastEnd = null;
          return;
        case 'turn_complete':
        case 'task_complete':
          lastStatus = 'completed';
          lastEnd = { offset: raw.offset, length: raw.end - raw.start };
          return;
        case 'turn_aborted':
          lastStatus = 'interrupted';
          lastEnd = null;
          return;
        default:
          return;
      }
    },
    { sizeHint: sizeOf(fd) },
  );
  alongside?.end(fd, scan);
  // The last token count, turn context and turn end, and the last line (lines are in time order: it
  // says when the thread was last updated), read again now that the scan is over.
  const last: LineRef | null = lastLength < 0 ? null : { offset: lastOffset, length: lastLength };
  const payloads = new Map<number, unknown>();
  let lastTimestamp: string | null = null;
  const refs = [lastToken, lastContext, lastEnd, last]
    .filter((r): r is LineRef => r !== null)
    .sort((a, b) => a.offset - b.offset);
  readLines(fd, refs, (raw) => {
    const p = parseLine(raw);
    if (!p.ok) return;
    payloads.set(raw.offset, p.line.payload);
    if (raw.offset === last?.offset) lastTimestamp = p.line.timestamp;
  });
  if (lastTimestamp !== null) updatedAtMs = timeMs(lastTimestamp);
  const payloadAt = (ref: LineRef | null): unknown => (ref === null ? undefined : payloads.get(ref.offset));
  const ended = TurnEndedEvent.safeParse(payloadAt(lastEnd));
  if (ended.success && ended.data.weft_turn) lastStatus = ended.data.weft_turn.status;
  const tokens = tokenUsageFromEvent(payloadAt(lastToken));
  const ctx = recordedTurnContext(payloadAt(lastContext));
  const outlineLike: RolloutOutline = {
    path,
    meta,
    metaEnd: 0,
    turns: [],
    historyRefs: [],
    historyBase: -1,
    lastTurnContext: ctx,
    tokenUsage: tokens,
    name,
    preview,
    updatedAtMs,
    firstTimestampMs: firstMs,
    end: 0,
    tailBytes: 0,
    warnings: [],
    lastRollback: null,
  };
  const thread = threadOf(outlineLike);
  const id = thread.id || (parseRolloutFileName(basename(path))?.id ?? '');
  const created = createdAtMs(outlineLike, id) || stat.mtimeMs;
  return {
    id,
    path,
    origin: options.origin,
    fileSize: stat.size,
    fileMtimeMs: Math.floor(stat.mtimeMs),
    createdAtMs: created,
    updatedAtMs: Math.max(updatedAtMs || Math.floor(stat.mtimeMs), created),
    cwd: thread.cwd,
    preview,
    name,
    model: ctx?.model ?? null,
    modelProvider: thread.modelProvider,
    source: thread.source,
    cliVersion: thread.cliVersion,
    archived: options.archived,
    forkedFromId: thread.forkedFromId,
    forkedAtTurnId: forkedAtTurnIdOf(outlineLike),
    gitSha: thread.gitInfo?.sha ?? null,
    gitBranch: thread.gitInfo?.branch ?? null,
    gitOriginUrl: thread.gitInfo?.originUrl ?? null,
    tokensTotal: tokens?.total.totalTokens ?? 0,
    tokensInput: tokens?.total.inputTokens ?? 0,
    tokensOutput: tokens?.total.outputTokens ?? 0,
    lastTurnStatus: lastStatus,
    weftWorktree: rolloutWorktreeOf(outlineLike.meta),
    text: text.join('\n'),
  };
}
