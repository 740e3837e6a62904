// Runs that end in another process (`weft automations due` from a timer, another host on the same
// WEFT_HOME) are told to this host's clients too: the runs histories are watched (`fs.watch` on the
// automations folder, debounced) and read again on a slow poll, for file systems whose events do not come
// (a folder made later is watched from the next poll). Each ended run is told once, whoever notices it
// first: this host's own scheduler (`claim`) or the watcher. Runs that had ended before the watch began
// are not told.
import { watch as fsWatchRaw } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { errorMessage } from '../util/errors';
import { historyFile, readRuns } from './history';
import { automationsDir } from './store';
import type { FileWatch } from './triggers';

const HISTORY_SUFFIX = '.runs.jsonl';
/** Quiet after a change to a history before it is read: a run writes its lines in a burst. */
const DEBOUNCE_MS = 200;
/** How often the histories are read again without an event: a missed event is noticed this late at most. */
const POLL_MS = 30_000;

export interface RunEndWatchOptions {
  weftHome: string;
  /** Told each run that ended after the watch began, once (unless `claim` took it first). */
  onEnded(automationId: string, runId: string): void;
  log(line: string): void;
  /** How the folder is watched; omitted = `fs.watch`. */
  watch?: FileWatch;
  setTimer?(fn: () => void, ms: number): () => void;
  pollMs?: number;
}

export interface RunEndWatch {
  /** True the first time a run is claimed or noticed: the caller tells it; false after. */
  claim(automationId: string, runId: string): boolean;
  /** Reads the histories that changed now (also what each event and poll does). */
  rescan(): Promise<void>;
  close(): Promise<void>;
}

/** `fs.watch` of the (flat) folder, unref'd: watching never keeps a one-shot command's process alive. */
const folderWatch: FileWatch = (dir, onChange) => {
  try {
    const watcher = fsWatchRaw(dir, (_event, name) => onChange(name === null ? null : String(name)));
    watcher.on('error', () => undefined);
    watcher.unref();
    return () => watcher.close();
  } catch {
    return () => undefined;
  }
};

const realTimer = (fn: () => void, ms: number): (() => void) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** Starts watching; resolves once the runs already ended are known (they are not told). */
export async function watchRunEnds(options: RunEndWatchOptions): Promise<RunEndWatch> {
  const setTimer = options.setTimer ?? realTimer;
  const dir = automationsDir(options.weftHome);
  const told = new Set<string>();
  /** Each history's size and mtime when last read: an unchanged one is not read again. */
  const seenStamps = new Map<string, string>();
  let closed = false;
  let scanning: Promise<void> | null = null;
  let again = false;
  const key = (id: string, runId: string): string => `${id}\0${runId}`;
  const claim = (id: string, runId: string): boolean => {
    if (told.has(key(id, runId))) return false;
    told.add(key(id, runId));
    return true;
  };

  const scanOnce = async (announce: boolean): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names) {
      if (!name.endsWith(HISTORY_SUFFIX)) continue;
      const id = name.slice(0, -HISTORY_SUFFIX.length);
      const info = await stat(historyFile(options.weftHome, id)).catch(() => null);
      if (info === null) continue;
      const stamp = `${info.size}:${info.mtimeMs}`;
      if (seenStamps.get(id) === stamp) continue;
      seenStamps.set(id, stamp);
      for (const run of await readRuns(options.weftHome, id)) {
        if (run.status === 'running') continue;
        if (claim(id, run.runId) && announce && !closed) options.onEnded(id, run.runId);
      }
    }
  };

  const rescan = (): Promise<void> => {
    if (scanning !== null) {
      again = true;
      return scanning;
    }
    const loop = async (): Promise<void> => {
      do {
        again = false;
        await scanOnce(true).catch((error: unknown) =>
          options.log(`weft automations: could not read the runs histories in ${dir}: ${errorMessage(error)}`),
        );
      } while (again && !closed);
    };
    scanning = loop().finally(() => {
      scanning = null;
    });
    return scanning;
  };

  await scanOnce(false);
  let cancelDebounce: (() => void) | null = null;
  let stopWatch: (() => void) | null = null;
  /** Watches the folder once it exists (it is not made for this: a home without automations stays so). */
  const startWatch = async (): Promise<void> => {
    if (stopWatch !== null || closed) return;
    const exists = await stat(dir).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!exists || stopWatch !== null || closed) return;
    stopWatch = (options.watch ?? folderWatch)(dir, (name) => {
      if (name !== null && !name.endsWith(HISTORY_SUFFIX)) return;
      cancelDebounce?.();
      cancelDebounce = setTimer(() => {
        cancelDebounce = null;
        void rescan();
      }, DEBOUNCE_MS);
    });
  };
  await startWatch();
  let cancelPoll: (() => void) | null = null;
  const poll = (): void => {
    cancelPoll = setTimer(() => {
      void startWatch()
        .then(rescan)
        .then(() => {
          if (!closed) poll();
        });
    }, options.pollMs ?? POLL_MS);
  };
  poll();
  return {
    claim,
    rescan,
    close: async () => {
      closed = true;
      stopWatch?.();
      cancelDebounce?.();
      cancelPoll?.();
      await scanning;
    },
  };
}
