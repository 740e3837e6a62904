// The event triggers. A new commit on a branch: git is asked for the branch's head on each pass of the
// scheduler (at least once a minute) and by `weft automations due`; the first look records the head as
// seen, so only a later commit starts a run. A change to files under a path: a watcher (given from
// outside, so tests drive it) and a debounce on the scheduler's clock; changes inside `.git` and while a
// run of the automation is under way (its own writes, for a local run) start nothing.
import { watch } from 'node:fs';
import { join } from 'node:path';
import { git } from '../safety/git/run';
import { lastCommit, recordWatched } from './history';
import type { Automation } from './record';

/** Calls `onChange` with the changed path (relative to `dir`, null when unknown) until the returned stop. */
export type FileWatch = (dir: string, onChange: (path: string | null) => void) => () => void;

/** The files' watcher: `fs.watch`, recursive (a folder that cannot be watched starts nothing). */
export const fsWatch: FileWatch = (dir, onChange) => {
  try {
    const watcher = watch(dir, { recursive: true }, (_event, name) => onChange(name === null ? null : String(name)));
    watcher.on('error', () => undefined);
    return () => watcher.close();
  } catch {
    return () => undefined;
  }
};

/** Seconds of quiet after a change before the run starts, when `debounce_seconds` is not given. */
export const DEFAULT_DEBOUNCE_SECONDS = 10;

/** The commit `branch` of `project` points at; null when there is no such branch (or no repository). */
export async function branchHead(project: string, branch: string): Promise<string | null> {
  const out = await git(
    project,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`],
    {
      optionalLocks: false,
    },
  ).catch(() => null);
  const commit = out?.stdout.trim() ?? '';
  return commit === '' ? null : commit;
}

/**
 * The new commit a `commit` automation is owed a run for: its branch's head, when that is not the one it
 * last answered or saw. The first look records the head as seen and owes nothing.
 */
export async function commitDue(weftHome: string, automation: Automation, now: number): Promise<string | null> {
  if (!automation.enabled || automation.trigger.type !== 'commit') return null;
  const head = await branchHead(automation.project, automation.trigger.branch);
  if (head === null) return null;
  const last = await lastCommit(weftHome, automation.id);
  if (last === null) {
    await recordWatched(weftHome, automation.id, head, now);
    return null;
  }
  return head === last ? null : head;
}

interface Watched {
  key: string;
  automation: Automation;
  stop: () => void;
  cancelTimer: (() => void) | null;
}

/** The watchers of the enabled `fileChange` automations, kept in step with the files by `sync`. */
export class FileTriggers {
  readonly #watched = new Map<string, Watched>();

  constructor(
    private readonly options: {
      watch: FileWatch;
      setTimer(fn: () => void, ms: number): () => void;
      /** Starts a run (the scheduler's; it does nothing while one of the automation runs). */
      start(automation: Automation): void;
      running(id: string): boolean;
    },
  ) {}

  /** Watches what `automations` (the usable ones) ask to, and stops watching the rest. */
  sync(automations: readonly Automation[]): void {
    const wanted = new Map<string, Automation>();
    for (const a of automations) if (a.enabled && a.trigger.type === 'fileChange') wanted.set(a.id, a);
    for (const [id, w] of this.#watched) {
      const next = wanted.get(id);
      if (next !== undefined && keyOf(next) === w.key) w.automation = next;
      else this.#stop(id);
    }
    for (const [id, automation] of wanted) if (!this.#watched.has(id)) this.#start(id, automation);
  }

  close(): void {
    for (const id of [...this.#watched.keys()]) this.#stop(id);
  }

  #start(id: string, automation: Automation): void {
    if (automation.trigger.type !== 'fileChange') return;
    const dir = join(automation.project, automation.trigger.path ?? '');
    const debounceMs = (automation.trigger.debounce_seconds ?? DEFAULT_DEBOUNCE_SECONDS) * 1000;
    const watched: Watched = { key: keyOf(automation), automation, stop: () => undefined, cancelTimer: null };
    watched.stop = this.options.watch(dir, (path) => {
      if (path !== null && (path === '.git' || path.startsWith('.git/'))) return;
      if (this.options.running(id)) return;
      watched.cancelTimer?.();
      watched.cancelTimer = this.options.setTimer(() => {
        watched.cancelTimer = null;
        this.options.start(watched.automation);
      }, debounceMs);
    });
    this.#watched.set(id, watched);
  }

  #stop(id: string): void {
    const w = this.#watched.get(id);
    if (w === undefined) return;
    w.cancelTimer?.();
    w.stop();
    this.#watched.delete(id);
  }
}

function keyOf(a: Automation): string {
  return a.trigger.type === 'fileChange'
    ? `${a.project}\0${a.trigger.path ?? ''}\0${a.trigger.debounce_seconds ?? DEFAULT_DEBOUNCE_SECONDS}`
    : '';
}
