// Writing a fork: a new rollout whose first line is its own session_meta (`forked_from_id`, and Weft's
// `forked_at_turn_id`), followed by the source's lines up to the end of the chosen turn (or the whole file).
// Rollback markers before that point are copied too, so the fork rebuilds the same history. If the last
// copied turn never ended (the source crashed or is still running), a `turn_aborted` line closes it. The
// file is written to a temporary name, fsynced and renamed: a fork exists whole or not.
//
// Copies are whole (a Codex fork's parent lines are copied in, see rollout-source.ts) and in Codex 0.169's
// paginated form: `history_mode: "paginated"` and every line numbered by `ordinal` from 0 (copied lines
// are renumbered; their bytes are otherwise kept). A copy of a Codex thread that keeps its id (Weft
// continuing it) is written the same way.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RolloutWeftWorktree, SessionMetaPayload } from '../../src-preload/protocol';
import type { Located } from './catalog';
import { StoreInputError } from './errors';
import { outlineFd, type RolloutOutline, type TurnOutline } from './outline';
import { forEachLine, lineSteps } from './line-reader';
import { lineTimestamp } from './paths';
import { closeRollout, openRollout, type RolloutFd } from './rollout-source';
import type { NewThreadMeta } from './store-types';
import { SUB_AGENT_META_KEYS, subAgentMetaFields, subAgentOf } from './sub-agent-meta';
import { forkAttributeEvents } from './thread-events';
import { readTurnRecords } from './turn-items';

export interface ForkSource {
  outline: RolloutOutline;
  /** Copy the source up to here (exclusive). */
  end: number;
  /** The turn to close with `turn_aborted`, when it never ended. */
  unfinished: TurnOutline | null;
}

/** Where to cut `path` for a fork after `afterTurnId` (null = everything). */
export function planFork(fd: RolloutFd, path: string, threadId: string, afterTurnId: string | null): ForkSource {
  return cutAt(outlineFd(fd, path), threadId, afterTurnId);
}

/** Where to cut a rollout with this outline for a fork after `afterTurnId` (null = everything). */
export function cutAt(outline: RolloutOutline, threadId: string, afterTurnId: string | null): ForkSource {
  let turn: TurnOutline | undefined;
  let end = outline.end;
  if (afterTurnId !== null) {
    turn = outline.turns.find((t) => t.id === afterTurnId);
    if (!turn)
      throw new StoreInputError(
        `thread ${threadId} has no turn ${afterTurnId} (it may have been rolled back); pick a turn from \`weft threads read ${threadId}\``,
      );
    end = turn.endOffset;
  } else {
    turn = outline.turns[outline.turns.length - 1];
  }
  const unfinished = turn && turn.explicit && turn.endedAtMs === null && turn.endOffset >= end ? turn : null;
  return { outline, end: Math.max(end, outline.metaEnd), unfinished };
}

export interface ForkMeta {
  id: string;
  sourceId: string;
  afterTurnId: string | null;
  now: Date;
  cliVersion: string;
  /** Meta for a source without a readable session_meta line. */
  fallbackCwd: string;
}

/** Fields of a Codex session_meta that describe the file, not the thread: a whole copy drops them. */
const FILE_ONLY_META = new Set(['history_base', 'forked_from_ordinal_exclusive']);

/** A session_meta payload for a whole, paginated copy of `source`. */
export function copiedMeta(source: SessionMetaPayload | null, fallbackCwd: string): Record<string, unknown> {
  const meta = Object.fromEntries(
    Object.entries(source ?? { cwd: fallbackCwd, source: 'unknown' }).filter(([k]) => !FILE_ONLY_META.has(k)),
  );
  return { ...meta, history_mode: 'paginated' };
}

/** The fork's session_meta: the source's (cwd, provider, instructions, git, …) under the new identity. */
export function forkMetaPayload(source: SessionMetaPayload | null, m: ForkMeta): Record<string, unknown> {
  // A fork of a sub-agent is a thread of its own: no parent, nickname or session tree.
  const copied = Object.fromEntries(
    Object.entries(copiedMeta(source, m.fallbackCwd)).filter(([k]) => !SUB_AGENT_META_KEYS.includes(k)),
  );
  return {
    ...copied,
    ...(subAgentOf(source) === null ? {} : { source: 'appServer' }),
    id: m.id,
    forked_from_id: m.sourceId,
    forked_at_turn_id: m.afterTurnId,
    timestamp: lineTimestamp(m.now),
    originator: 'weft',
    cli_version: m.cliVersion,
  };
}

const ORDINAL_PREFIX = /^\{"timestamp":"[^"\\]*","ordinal":\d+,/;
const TIMESTAMP_PREFIX = /^\{"timestamp":"[^"\\]*",/;

/** A copied line with its `ordinal` set to `n` (placed after the timestamp, as Codex writes it). */
export function withOrdinal(line: string, n: number): string {
  const numbered = ORDINAL_PREFIX.exec(line);
  if (numbered) return `${numbered[0].replace(/"ordinal":\d+,$/, `"ordinal":${n},`)}${line.slice(numbered[0].length)}`;
  const stamped = TIMESTAMP_PREFIX.exec(line);
  if (stamped) return `${stamped[0]}"ordinal":${n},${line.slice(stamped[0].length)}`;
  try {
    const json: unknown = JSON.parse(line);
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
      const { timestamp, ...rest } = json as Record<string, unknown>;
      return JSON.stringify({ timestamp, ...rest, ordinal: n });
    }
  } catch {
    // not JSON: copied as it is (readers skip it)
  }
  return line;
}

/** How many lines `writeForkFile` writes for `plan` (its session_meta, the copied lines, the closing ones). */
export function forkLineCount(sourceFd: RolloutFd, plan: ForkSource, extraEvents: number): number {
  let lines = 0;
  forEachLine(
    sourceFd,
    plan.outline.metaEnd,
    (raw) => {
      if (raw.end > raw.start) lines++;
    },
    { until: plan.end },
  );
  return 1 + lines + (plan.unfinished ? 1 : 0) + extraEvents;
}

/** Bytes of the fork file gathered before they are handed out (one write each). */
const CHUNK_BYTES = 1 << 20;

/**
 * The fork file's bytes, about a megabyte at a time (see the file comment): its session_meta, the source's
 * lines renumbered, and the closing lines. Returns how many lines it gave.
 */
export function* forkChunks(
  sourceFd: RolloutFd,
  plan: ForkSource,
  meta: Record<string, unknown>,
  now: Date,
  extraEvents: readonly Record<string, unknown>[] = [],
): Generator<Buffer, number> {
  const stamp = lineTimestamp(now);
  let ordinal = 0;
  const line = (type: string, payload: unknown): Buffer =>
    Buffer.from(JSON.stringify({ timestamp: stamp, ordinal: ordinal++, type, payload }) + '\n');
  yield line('session_meta', meta);
  let pending: string[] = [];
  let pendingBytes = 0;
  const steps = lineSteps(
    sourceFd,
    plan.outline.metaEnd,
    (raw) => {
      const text = raw.buf.toString('utf8', raw.start, raw.end);
      const copied = raw.end === raw.start ? text : withOrdinal(text, ordinal++);
      pending.push(copied + '\n');
      pendingBytes += copied.length;
    },
    { until: plan.end },
  );
  for (let step = steps.next(); ; step = steps.next()) {
    if (pendingBytes > CHUNK_BYTES || (step.done === true && pending.length > 0)) {
      yield Buffer.from(pending.join(''));
      pending = [];
      pendingBytes = 0;
    }
    if (step.done === true) break;
  }
  const t = plan.unfinished;
  if (t) {
    const startedAt =
      readTurnRecords(sourceFd, t).start?.startedAt ??
      (t.startedAtMs === null ? null : Math.floor(t.startedAtMs / 1000));
    const weftTurn = { id: t.id, status: 'interrupted', error: null, startedAt, completedAt: null, durationMs: null };
    yield line('event_msg', { type: 'turn_aborted', turn_id: t.id, reason: 'interrupted', weft_turn: weftTurn });
  }
  for (const payload of extraEvents) yield line('event_msg', payload);
  return ordinal;
}

/** Writes the fork file at `target` (see the file comment). */
export function writeForkFile(
  sourceFd: RolloutFd,
  plan: ForkSource,
  target: string,
  meta: Record<string, unknown>,
  now: Date,
  extraEvents: readonly Record<string, unknown>[] = [],
): void {
  writeAtomically(target, (out) => {
    for (const chunk of forkChunks(sourceFd, plan, meta, now, extraEvents)) writeAll(out, chunk);
  });
}

function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * Writes a whole new file at `target`: into a temp file, fsynced, then renamed over. On failure the temp
 * file is removed and `target` is untouched.
 */
function writeAtomically(target: string, write: (fd: number) => void): void {
  const tmp = `${target}.tmp-${process.pid}`;
  const out = openSync(tmp, 'w');
  try {
    write(out);
    fsyncSync(out);
    closeSync(out);
    renameSync(tmp, target);
  } catch (error) {
    try {
      closeSync(out);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Writes a brand-new rollout holding just its session_meta line (atomically). */
export function writeNewRollout(target: string, meta: Record<string, unknown>, created: Date): void {
  writeAtomically(target, (out) => {
    writeAll(
      out,
      Buffer.from(
        JSON.stringify({ timestamp: lineTimestamp(created), ordinal: 0, type: 'session_meta', payload: meta }) + '\n',
      ),
    );
  });
}

/** The session_meta payload of a new thread. */
export function newSessionMeta(meta: NewThreadMeta, created: Date, cliVersion: string): Record<string, unknown> {
  return {
    id: meta.id,
    forked_from_id: meta.forkedFromId ?? null,
    forked_at_turn_id: meta.forkedAtTurnId ?? null,
    timestamp: created.toISOString(),
    cwd: meta.cwd,
    originator: 'weft',
    cli_version: cliVersion,
    source: meta.source,
    model_provider: meta.modelProvider,
    base_instructions: meta.baseInstructions === null ? null : { text: meta.baseInstructions },
    git: meta.git ? { commit_hash: meta.git.sha, branch: meta.git.branch, repository_url: meta.git.originUrl } : null,
    history_mode: 'paginated',
    ...(meta.weftWorktree ? { weft_worktree: meta.weftWorktree } : {}),
    ...(meta.subAgent ? subAgentMetaFields(meta.subAgent) : {}),
  };
}

/** A planned copy of a rollout: write it with `write()`; `lines` is how many lines it will have. */
export interface PlannedCopy {
  lines: number;
  /** Writes the copy at the planned path, or at `path` when given (a rescue file, say). */
  write(path?: string): void;
}

/**
 * Plans a whole copy of `source` (after `afterTurnId`, or all of it) as thread `target.id` at `target.path`:
 * a fork when the id is new (`forked_from_id` = the source), else the same thread continued in Weft. The
 * source is read now (a Codex fork with its parents); `write()` writes what was read then.
 */
export function planCopy(source: Located, afterTurnId: string | null, target: CopyTarget): PlannedCopy {
  const { fd } = openRollout(source.path);
  try {
    const plan = planFork(fd, source.path, source.id, afterTurnId);
    const { meta, extra } = copyLines(source, plan, afterTurnId, target);
    const lines = forkLineCount(fd, plan, extra.length);
    closeRollout(fd);
    return {
      lines,
      write: (path = target.path) => {
        const again = openRollout(source.path);
        try {
          mkdirSync(dirname(path), { recursive: true });
          writeForkFile(again.fd, plan, path, meta, target.created, extra);
        } finally {
          closeRollout(again.fd);
        }
      },
    };
  } catch (error) {
    closeRollout(fd);
    throw error;
  }
}

/** What a copy is made as: a new thread (a fork), or the same thread continued in Weft. */
export interface CopyTarget {
  id: string;
  path: string;
  created: Date;
  cliVersion: string;
  /** A fork's own working directory (its worktree or copy), when it has one. */
  cwd?: string | null;
  /** With `cwd`: the git worktree it is (a copy: none; the source's worktree is not the fork's). */
  weftWorktree?: RolloutWeftWorktree | null;
}

/** The lines a copy of `source` as `target` has besides the copied ones: its session_meta, and events after them. */
export function copyLines(
  source: Located,
  plan: ForkSource,
  afterTurnId: string | null,
  target: CopyTarget,
): { meta: Record<string, unknown>; extra: Record<string, unknown>[] } {
  const meta =
    target.id === source.id
      ? { ...copiedMeta(plan.outline.meta, ''), id: source.id }
      : {
          ...forkMetaPayload(plan.outline.meta, {
            id: target.id,
            sourceId: source.id,
            afterTurnId,
            now: target.created,
            cliVersion: target.cliVersion,
            fallbackCwd: '',
          }),
          // A fork with its own files works in its worktree or copy (an undefined worktree is left out).
          ...(target.cwd !== undefined && target.cwd !== null
            ? { cwd: target.cwd, weft_worktree: target.weftWorktree ?? undefined }
            : {}),
        };
  // A Codex thread's name lives in Codex's session index, not in its rollout: carry it over.
  const name = source.attributes.name;
  const rename = source.origin === 'codex' && name !== null && name !== plan.outline.attributes.name;
  const extra: Record<string, unknown>[] = rename
    ? [{ type: 'thread_name_updated', thread_id: target.id, thread_name: name }]
    : [];
  // A fork starts with the attributes of a new thread where it should (a copy of the same thread keeps all).
  if (target.id !== source.id) extra.push(...forkAttributeEvents(plan.outline.attributes));
  // A fork of a thread a Handoff moved works where its own files are, when it has them, not where the
  // source was moved to (no turn is named: the fork's own turns decide where it runs, as for any fork).
  const ownCwd = target.cwd ?? null;
  if (target.id !== source.id && ownCwd !== null && plan.outline.attributes.moved !== null)
    extra.push({ type: 'weft_thread_moved', cwd: ownCwd, after_turn_id: null });
  return { meta, extra };
}

/** Writes the fork of `source` (after `afterTurnId`, or all of it) as the new thread `target.id` at `target.path`. */
export function writeForkOf(source: Located, afterTurnId: string | null, target: CopyTarget): void {
  planCopy(source, afterTurnId, target).write();
}
