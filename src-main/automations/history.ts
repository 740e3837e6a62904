// An automation's runs: `WEFT_HOME/automations/<id>.runs.jsonl`, one line per event of a run (started, its
// thread, ended, and the person's marks: seen in the inbox, kept or discarded; and what the event triggers
// last saw: a branch head, a digest of files), each appended in one write.
// Folded, they are the automation's history. A run that started and never ended (the process was killed,
// the machine restarted) is marked failed by the next run's owner, with its thread kept.
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { automationsDir } from './store';

const RunStatus = z.enum(['running', 'completed', 'failed', 'interrupted']);
export type RunStatus = z.infer<typeof RunStatus>;

export type RunTriggerType = 'schedule' | 'manual' | 'commit' | 'fileChange';

const RunCommand = z.object({ command: z.string(), exitCode: z.number().int().nullable() });
export type RunCommand = z.infer<typeof RunCommand>;
const RunCost = z.object({ usdMicros: z.number().int().nonnegative(), unpricedModels: z.array(z.string()) });
export type RunCost = z.infer<typeof RunCost>;

/** What the executor learnt of the run's turn; absent from lines written before it was recorded. */
export interface RunFacts {
  turnId: string | null;
  changedFiles: number | null;
  cost: RunCost | null;
  commands: RunCommand[];
}

export const NO_FACTS: RunFacts = { turnId: null, changedFiles: null, cost: null, commands: [] };

const RunLine = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('started'),
    runId: z.string(),
    trigger: z.enum(['schedule', 'manual', 'commit', 'fileChange']),
    /** For a `commit` run: the commit it answers. */
    commit: z.string().optional(),
    /** The scheduled time this run answers (ms); null for a manual run. */
    slot: z.number().nullable(),
    startedAt: z.number(),
    pid: z.number(),
    /** The remote environment the run happens on (its thread and worktree are there); absent: this machine. */
    environment: z.string().optional(),
  }),
  z.object({ type: z.literal('thread'), runId: z.string(), threadId: z.string(), worktree: z.string().nullable() }),
  z.object({
    type: z.literal('ended'),
    runId: z.string(),
    endedAt: z.number(),
    status: RunStatus.exclude(['running']),
    reason: z.string().nullable(),
    finalMessage: z.string().nullable(),
    turnId: z.string().nullable().optional(),
    changedFiles: z.number().int().nonnegative().nullable().optional(),
    cost: RunCost.nullable().optional(),
    commands: z.array(RunCommand).optional(),
  }),
  z.object({ type: z.literal('seen'), runId: z.string(), at: z.number() }),
  /** A `commit` automation's branch head as first seen: a later commit is new, this one is not. */
  z.object({ type: z.literal('watched'), runId: z.literal(''), commit: z.string(), at: z.number() }),
  /** A `fileChange` automation's files as last looked at (`files-snapshot.ts`): a change is a new digest. */
  z.object({ type: z.literal('files'), runId: z.literal(''), digest: z.string(), at: z.number() }),
  z.object({ type: z.literal('decided'), runId: z.string(), decision: z.enum(['kept', 'discarded']), at: z.number() }),
]);
type RunLine = z.infer<typeof RunLine>;

export interface AutomationRun extends RunFacts {
  runId: string;
  trigger: RunTriggerType;
  slot: number | null;
  startedAt: number;
  endedAt: number | null;
  status: RunStatus;
  threadId: string | null;
  /** The run's worktree folder; null for a local run or before it was made. */
  worktree: string | null;
  /** The remote environment it ran on (its thread and worktree are there); null: this machine. */
  environment: string | null;
  /** Why it failed or was stopped; null otherwise. */
  reason: string | null;
  finalMessage: string | null;
  /** Opened in the inbox. */
  seen: boolean;
  decision: 'kept' | 'discarded' | null;
}

export function historyFile(weftHome: string, id: string): string {
  return join(automationsDir(weftHome), `${id}.runs.jsonl`);
}

/** The history's lines, in order. A damaged line (a torn last write) is skipped. */
async function readLines(weftHome: string, id: string): Promise<RunLine[]> {
  let text: string;
  try {
    text = await readFile(historyFile(weftHome, id), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines: RunLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const parsed = RunLine.safeParse(JSON.parse(raw));
      if (parsed.success) lines.push(parsed.data);
    } catch {
      continue;
    }
  }
  return lines;
}

/**
 * The commit a `commit` automation last answered or first saw (`recordWatched`); null before either. A
 * branch head other than this one is a new commit.
 */
export async function lastCommit(weftHome: string, id: string): Promise<string | null> {
  let commit: string | null = null;
  for (const line of await readLines(weftHome, id))
    if (line.type === 'watched' || (line.type === 'started' && line.commit !== undefined)) commit = line.commit ?? null;
  return commit;
}

/** Records the branch head a `commit` automation starts watching from (nothing runs for it). */
export function recordWatched(weftHome: string, id: string, commit: string, at: number): Promise<void> {
  return append(weftHome, id, { type: 'watched', runId: '', commit, at });
}

/** The digest of a `fileChange` automation's files last recorded (`recordFiles`); null before any. */
export async function lastFiles(weftHome: string, id: string): Promise<string | null> {
  let digest: string | null = null;
  for (const line of await readLines(weftHome, id)) if (line.type === 'files') digest = line.digest;
  return digest;
}

/** Records the digest of a `fileChange` automation's files: a later one that differs is a change. */
export function recordFiles(weftHome: string, id: string, digest: string, at: number): Promise<void> {
  return append(weftHome, id, { type: 'files', runId: '', digest, at });
}

/** The runs, oldest first. */
export async function readRuns(weftHome: string, id: string): Promise<AutomationRun[]> {
  const runs = new Map<string, AutomationRun>();
  for (const line of await readLines(weftHome, id)) {
    if (line.type === 'started') {
      runs.set(line.runId, {
        runId: line.runId,
        trigger: line.trigger,
        slot: line.slot,
        startedAt: line.startedAt,
        endedAt: null,
        status: 'running',
        threadId: null,
        worktree: null,
        environment: line.environment ?? null,
        reason: null,
        finalMessage: null,
        ...NO_FACTS,
        seen: false,
        decision: null,
      });
      continue;
    }
    if (line.type === 'watched' || line.type === 'files') continue;
    const run = runs.get(line.runId);
    if (run === undefined) continue;
    switch (line.type) {
      case 'thread':
        run.threadId = line.threadId;
        run.worktree = line.worktree;
        break;
      case 'ended':
        run.endedAt = line.endedAt;
        run.status = line.status;
        run.reason = line.reason;
        run.finalMessage = line.finalMessage;
        run.turnId = line.turnId ?? null;
        run.changedFiles = line.changedFiles ?? null;
        run.cost = line.cost ?? null;
        run.commands = line.commands ?? [];
        break;
      case 'seen':
        run.seen = true;
        break;
      case 'decided':
        run.decision = line.decision;
        break;
    }
  }
  return [...runs.values()];
}

async function append(weftHome: string, id: string, line: RunLine): Promise<void> {
  await mkdir(automationsDir(weftHome), { recursive: true });
  await appendFile(historyFile(weftHome, id), `${JSON.stringify(line)}\n`);
}

export async function recordStart(
  weftHome: string,
  id: string,
  start: { trigger: RunTriggerType; slot: number | null; at: number; commit?: string; environment?: string },
): Promise<string> {
  const runId = randomUUID();
  await append(weftHome, id, {
    type: 'started',
    runId,
    trigger: start.trigger,
    ...(start.commit === undefined ? {} : { commit: start.commit }),
    slot: start.slot,
    startedAt: start.at,
    pid: process.pid,
    ...(start.environment === undefined ? {} : { environment: start.environment }),
  });
  return runId;
}

export function recordThread(
  weftHome: string,
  id: string,
  runId: string,
  threadId: string,
  worktree: string | null,
): Promise<void> {
  return append(weftHome, id, { type: 'thread', runId, threadId, worktree });
}

export function recordEnd(
  weftHome: string,
  id: string,
  runId: string,
  end: {
    at: number;
    status: 'completed' | 'failed' | 'interrupted';
    reason: string | null;
    finalMessage: string | null;
  } & Partial<RunFacts>,
): Promise<void> {
  return append(weftHome, id, {
    type: 'ended',
    runId,
    endedAt: end.at,
    status: end.status,
    reason: end.reason,
    finalMessage: end.finalMessage,
    turnId: end.turnId ?? null,
    changedFiles: end.changedFiles ?? null,
    cost: end.cost ?? null,
    commands: end.commands ?? [],
  });
}

/** The person opened the run in the inbox. */
export function recordSeen(weftHome: string, id: string, runId: string, at: number): Promise<void> {
  return append(weftHome, id, { type: 'seen', runId, at });
}

/** The person kept (handed off) or discarded the run's work. */
export function recordDecision(
  weftHome: string,
  id: string,
  runId: string,
  decision: 'kept' | 'discarded',
  at: number,
): Promise<void> {
  return append(weftHome, id, { type: 'decided', runId, decision, at });
}

/**
 * Marks failed every run still open. Only the holder of the automation's lock calls it: no other run of
 * it can be under way, so an open run is one whose process died.
 */
export async function settleAbandonedRuns(weftHome: string, id: string, now: number): Promise<void> {
  for (const run of await readRuns(weftHome, id)) {
    if (run.status !== 'running') continue;
    const kept = run.threadId === null ? '' : `; its thread ${run.threadId} is kept as far as it got`;
    await recordEnd(weftHome, id, run.runId, {
      at: now,
      status: 'failed',
      reason: `the run was cut short before it finished (the machine restarted or its process was killed)${kept}`,
      finalMessage: null,
    });
  }
}
