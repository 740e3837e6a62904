// Writing a fork: a new rollout whose first line is its own session_meta (`forked_from_id`, and Weft's
// `forked_at_turn_id`), followed by the source's lines, byte for byte, up to the end of the chosen turn (or
// the whole file). Rollback markers before that point are copied too, so the fork rebuilds the same
// history. If the last copied turn never ended (the source crashed or is still running), a `turn_aborted`
// line closes it. The file is written to a temporary name, fsynced and renamed: a fork exists whole or not.
import { closeSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SessionMetaPayload } from '../../src-preload/protocol';
import type { Located } from './catalog';
import { StoreInputError } from './errors';
import { outlineFd, type RolloutOutline, type TurnOutline } from './outline';
import { lineTimestamp } from './paths';
import type { NewThreadMeta } from './store-types';
import { readTurnRecords } from './turn-items';

export interface ForkSource {
  outline: RolloutOutline;
  /** Copy the source up to here (exclusive). */
  end: number;
  /** The turn to close with `turn_aborted`, when it never ended. */
  unfinished: TurnOutline | null;
}

/** Where to cut `path` for a fork after `afterTurnId` (null = everything). */
export function planFork(fd: number, path: string, threadId: string, afterTurnId: string | null): ForkSource {
  const outline = outlineFd(fd, path);
  let turn: TurnOutline | undefined;
  let end = outline.end;
  if (afterTurnId !== null) {
    turn = outline.turns.find((t) => t.id === afterTurnId);
    if (!turn) throw new StoreInputError(`thread ${threadId} has no turn ${afterTurnId} (it may have been rolled back); pick a turn from \`weft threads read ${threadId}\``);
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

/** The fork's session_meta: the source's (cwd, provider, instructions, git, …) under the new identity. */
export function forkMetaPayload(source: SessionMetaPayload | null, m: ForkMeta): Record<string, unknown> {
  return {
    ...(source ?? { cwd: m.fallbackCwd, source: 'unknown' }),
    id: m.id,
    forked_from_id: m.sourceId,
    forked_at_turn_id: m.afterTurnId,
    timestamp: lineTimestamp(m.now),
    originator: 'weft',
    cli_version: m.cliVersion,
  };
}

/** Writes the fork file at `target` (see the file comment). */
export function writeForkFile(
  sourceFd: number,
  plan: ForkSource,
  target: string,
  meta: Record<string, unknown>,
  now: Date,
  extraEvents: readonly Record<string, unknown>[] = [],
): void {
  writeAtomically(target, (out) => {
    const stamp = lineTimestamp(now);
    writeAll(out, Buffer.from(JSON.stringify({ timestamp: stamp, type: 'session_meta', payload: meta }) + '\n'));
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = plan.outline.metaEnd; pos < plan.end; ) {
      const n = readSync(sourceFd, buf, 0, Math.min(buf.length, plan.end - pos), pos);
      if (n === 0) break;
      writeAll(out, buf.subarray(0, n));
      pos += n;
    }
    const t = plan.unfinished;
    if (t) {
      const startedAt = readTurnRecords(sourceFd, t).start?.startedAt ?? (t.startedAtMs === null ? null : Math.floor(t.startedAtMs / 1000));
      const weftTurn = { id: t.id, status: 'interrupted', error: null, startedAt, completedAt: null, durationMs: null };
      const payload = { type: 'turn_aborted', turn_id: t.id, reason: 'interrupted', weft_turn: weftTurn };
      writeAll(out, Buffer.from(JSON.stringify({ timestamp: stamp, type: 'event_msg', payload }) + '\n'));
    }
    for (const payload of extraEvents) {
      writeAll(out, Buffer.from(JSON.stringify({ timestamp: stamp, type: 'event_msg', payload }) + '\n'));
    }
  });
}

function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
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
    writeAll(out, Buffer.from(JSON.stringify({ timestamp: lineTimestamp(created), type: 'session_meta', payload: meta }) + '\n'));
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
  };
}

/** Writes the fork of `source` (after `afterTurnId`, or all of it) as the new thread `target.id` at `target.path`. */
export function writeForkOf(
  source: Located,
  afterTurnId: string | null,
  target: { id: string; path: string; created: Date; cliVersion: string },
): void {
  const fd = openSync(source.path, 'r');
  try {
    const plan = planFork(fd, source.path, source.id, afterTurnId);
    const meta = forkMetaPayload(plan.outline.meta, {
      id: target.id,
      sourceId: source.id,
      afterTurnId,
      now: target.created,
      cliVersion: target.cliVersion,
      fallbackCwd: '',
    });
    // A Codex thread's name lives in Codex's session index, not in its rollout: carry it over.
    const rename = source.origin === 'codex' && source.name !== null && source.name !== plan.outline.name;
    const extra = rename ? [{ type: 'thread_name_updated', thread_id: target.id, thread_name: source.name }] : [];
    mkdirSync(dirname(target.path), { recursive: true });
    writeForkFile(fd, plan, target.path, meta, target.created, extra);
  } finally {
    closeSync(fd);
  }
}
