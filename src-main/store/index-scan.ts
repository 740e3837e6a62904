// What the index keeps about one rollout, read in one streaming pass: the rollout's outline (outline.ts,
// which reads every event through the table of thread-events.ts: turns, rollbacks, the name and the other
// attributes, the preview, the last token count and turn context) and the text of its user and agent
// messages for search. The text of turns a rollback dropped is left out, as the outline leaves them out.
import { fstatSync } from 'node:fs';
import { basename } from 'node:path';
import type { RolloutWeftWorktree, TurnStatus } from '../../src-preload/protocol';
import { AgentMessageEvent, TurnEndedEvent, UserMessageEvent } from './events';
import { codexMessageText } from './codex-thread-items';
import { jsonStringNear, readLines } from './line-reader';
import { parseLine } from './line-parse';
import { createdAtMs, forkedAtTurnIdOf, rolloutWorktreeOf, threadOf } from './loader';
import {
  outlineSteps,
  type ContinuedOutline,
  type MessageListener,
  type MessageLine,
  type TurnOutline,
} from './outline';
import { parseRolloutFileName } from './paths';
import { closeRollout, openRollout, ownFd, type RolloutFd } from './rollout-source';
import { sourceKindOf, subAgentOf, type SubAgentInfo } from './sub-agent-meta';
import type { MessageText, ThreadAttributes } from './thread-events';

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
  /** The name and the other attributes the rollout's events set (see thread-events.ts). */
  attributes: ThreadAttributes;
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
  /** The sub-agent the session_meta describes (its `source` is then a `subAgent…` kind), or null. */
  subAgent: SubAgentInfo | null;
  text: string;
}

/** A rollout read for the index: its row, and the outline made on the way (kept for big threads). */
export interface ScannedRollout {
  summary: ThreadSummary;
  outlined: ContinuedOutline;
}

const MESSAGE_KEY = Buffer.from('"message":"');

/** The text of a message line (a user_message / agent_message read straight from its bytes when it can be). */
function messageText(kind: MessageText, line: MessageLine): string | null {
  if (kind === 'codexItem') {
    // Codex 0.169 (and Weft) record messages as items; only messages are parsed.
    const type = line.itemType();
    return type === 'UserMessage' || type === 'AgentMessage' ? codexMessageText(line.payload()) : null;
  }
  if (line.sniffed) {
    const direct = jsonStringNear(line.raw.buf, line.raw.start, line.raw.end, MESSAGE_KEY);
    if (direct !== null) return direct;
  }
  const e = (kind === 'userMessage' ? UserMessageEvent : AgentMessageEvent).safeParse(line.payload());
  return e.success ? e.data.message : null;
}

/** User and agent message text up to TEXT_CAP_CHARS, each piece with the turn it was recorded in. */
class SearchText {
  private chars = 0;
  private readonly pieces: { text: string; turn: TurnOutline | null }[] = [];

  readonly listener: MessageListener = (kind, line) => {
    if (this.chars >= TEXT_CAP_CHARS) return;
    const message = messageText(kind, line);
    if (message === null || message === '') return;
    const piece = message.slice(0, TEXT_CAP_CHARS - this.chars);
    this.pieces.push({ text: piece, turn: line.turn });
    this.chars += piece.length;
  };

  /** The text of the live turns (`turns`) and of lines outside every turn. */
  of(turns: readonly TurnOutline[]): string {
    const live = new Set(turns);
    return this.pieces
      .filter((p) => p.turn === null || live.has(p.turn))
      .map((p) => p.text)
      .join('\n');
  }
}

/**
 * The status of the last live turn: in progress when the file ends inside it (a turn running, or cut
 * short), else as its end line records it (Weft's `weft_turn`), else as the outline read it.
 */
function lastTurnStatus(fd: RolloutFd, { outline, progress }: ContinuedOutline): TurnStatus | null {
  const last = outline.turns[outline.turns.length - 1];
  if (!last) return null;
  if (progress.openIndex === outline.turns.length - 1 && last.explicit) return 'inProgress';
  let status: TurnStatus = last.status;
  if (last.endRef !== null) {
    readLines(fd, [last.endRef], (raw) => {
      const p = parseLine(raw);
      const ended = p.ok ? TurnEndedEvent.safeParse(p.line.payload) : null;
      if (ended?.success && ended.data.weft_turn) status = ended.data.weft_turn.status;
    });
  }
  return status;
}

/** Reads what the index needs from a rollout. Never throws on content; throws only when the file cannot be read. */
export function summarizeRollout(path: string, options: SummarizeOptions): ThreadSummary {
  const { fd } = openRollout(path);
  try {
    const steps = summarizeSteps(fd, path, options);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value.summary;
    }
  } finally {
    closeRollout(fd);
  }
}

export interface SummarizeOptions {
  archived: boolean;
  origin: ThreadOrigin;
}

/**
 * `summarizeRollout` of an open file, pausing after each megabyte read so big rollouts are indexed without
 * a long stall; it gives the outline it made too. The caller opens and closes `fd`.
 */
export function* summarizeSteps(
  fd: RolloutFd,
  path: string,
  options: SummarizeOptions,
): Generator<void, ScannedRollout> {
  // The thread's own file says when it changed; a fork's chain is read as one.
  const stat = fstatSync(ownFd(fd));
  const text = new SearchText();
  const outlined = yield* outlineSteps(fd, path, text.listener);
  const { outline } = outlined;
  const thread = threadOf(outline);
  const id = thread.id || (parseRolloutFileName(basename(path))?.id ?? '');
  const created = createdAtMs(outline, id) || stat.mtimeMs;
  const tokens = outline.tokenUsage;
  const summary: ThreadSummary = {
    id,
    path,
    origin: options.origin,
    fileSize: stat.size,
    fileMtimeMs: Math.floor(stat.mtimeMs),
    createdAtMs: created,
    updatedAtMs: Math.max(outline.updatedAtMs || Math.floor(stat.mtimeMs), created),
    cwd: thread.cwd,
    preview: outline.preview,
    attributes: outline.attributes,
    model: outline.lastTurnContext?.model ?? null,
    modelProvider: thread.modelProvider,
    source: sourceKindOf(outline.meta),
    cliVersion: thread.cliVersion,
    archived: options.archived,
    forkedFromId: thread.forkedFromId,
    forkedAtTurnId: forkedAtTurnIdOf(outline),
    gitSha: thread.gitInfo?.sha ?? null,
    gitBranch: thread.gitInfo?.branch ?? null,
    gitOriginUrl: thread.gitInfo?.originUrl ?? null,
    tokensTotal: tokens?.total.totalTokens ?? 0,
    tokensInput: tokens?.total.inputTokens ?? 0,
    tokensOutput: tokens?.total.outputTokens ?? 0,
    lastTurnStatus: lastTurnStatus(fd, outlined),
    weftWorktree: rolloutWorktreeOf(outline.meta),
    subAgent: subAgentOf(outline.meta),
    text: text.of(outline.turns),
  };
  return { summary, outlined };
}
