import { platform } from 'node:os';
import {
  ClientRequests,
  threadTitle,
  type ServerNotification,
  type WeftAutomationRunEndedNotification,
} from '../../src-preload/protocol';
import { resolveWeftHome } from '../config/home';
import type { KeyStore } from '../config/key-store';
import { ThreadStore } from '../store/thread-store';
import { VERSION } from '../version';
import { RpcDispatcher } from './dispatcher';
import { ClientFolders } from './client-folders';
import { stopSpawnHost } from '../util/spawn-host/connection';
import { threadListHandlers } from './handlers/thread-list';
import type { AutomationRunNow } from './handlers/automations';
import { lateHandlers, restoresPending } from './late-handlers';
import { createReadStates } from './read-states';
import type { PruneOutcome } from './worktree-cleanup';
import type { HostEnvironment } from './thread-factory';
import { ThreadManager } from './thread-manager';
import type { ConnectionHost } from './transport';
import type { AssembledRest } from './app-host-rest';
import type { HandlerTable } from './dispatcher';
import { DisposableStore } from '../util/disposable';
import { errorMessage } from '../util/errors';
import { whenQuiet, type QuietWindow } from '../util/quiet';
import { warmModelClient } from '../model/warm';
import { keepCompiledCode, saveCompiledCode } from '../util/compiled-code';
import { lowerPoolPriority } from '../util/pool-priority';
import { inSteps } from '../util/slicer';

/**
 * How long a thread nobody watches keeps its session (MCP servers, recorder) in case a client comes back
 * to it, and how many such threads stay loaded at most. The UI lets go of every thread it stops showing,
 * so the bound is what caps the processes of a person clicking through threads: 4 idle threads keep
 * their MCP servers (with the one shown, five threads' worth). Within the bound, going back to a thread
 * seen in the last few minutes finds its servers running instead of starting them again (a server may
 * take seconds to start), and after 5 minutes without anyone a thread gives its processes back. Codex
 * waits 30 minutes and has no bound.
 */
const UNLOAD_AFTER_MS = 5 * 60_000;
const MAX_UNWATCHED_THREADS = 4;

/**
 * With `answerEarly`, the rest of the host is assembled once no request came for this long (or when a
 * request needs it), and at the latest this long after start: assembling it holds the event loop for
 * tens of ms (importing its modules), which a client's first requests should not wait behind. Half a
 * second: a client's pause (a person reading the list) rather than a busy machine's hiccup.
 */
const REST_QUIET_MS = 500;
const REST_LATEST_MS = 5_000;
/**
 * Modules of the rest (app-host-rest.ts) imported before it, a group at a time: importing a module graph
 * reads, compiles and evaluates it in one stretch of the event loop, which for the whole rest was 40–60 ms;
 * with the config and the checkpoints first, the longest is 24–41 ms, and requests are answered between
 * them (bench/PROFILES.md, app-server start). Not more groups: each import walks the graph loaded so far
 * (18 groups cost 25 ms more than one import), and importing the thread or git handlers (or the session
 * machinery) ahead of the rest made the first turn of a fresh server stream its first text 10–20 ms later
 * (most likely their garbage bringing the first full collection into that turn). An order, not a list: what
 * is missing here comes with the rest.
 */
const REST_IN_STEPS: readonly (() => Promise<unknown>)[] = [
  () => import('../config/load'),
  () => import('../checkpoints/service'),
];

/**
 * The model client is loaded ahead of the first turn once no request came for this long (model/warm.ts):
 * a person opening the app reads before they type, and the load no longer holds the other threads.
 */
const WARM_QUIET_MS = 1_000;

export interface AppHostOptions {
  weftHome?: string;
  env?: NodeJS.ProcessEnv;
  /** Project new threads open on when the client names no cwd (default: the process cwd). */
  cwd?: string;
  log?: (line: string) => void;
  /** Idle threads with no subscriber are unloaded after this long (default 5 minutes). */
  unloadAfterMs?: number;
  /** At most this many idle threads with no subscriber stay loaded (default 4); beyond, the oldest go. */
  maxUnwatchedThreads?: number;
  modelClient?: HostEnvironment['modelClient'];
  /** Where keys saved from Settings are kept (the desktop app's keychain); default WEFT_HOME/auth.json. */
  keyStore?: KeyStore;
  /** How long after start the worktrees that may go are pruned (default a minute, off the start-up path). */
  pruneWorktreesAfterMs?: number;
  /** Told what the start's worktree prune did, once it is done. */
  onWorktreesPruned?: (outcomes: PruneOutcome[]) => void;
  /**
   * Resolve as soon as `initialize` and the thread lists can be answered, and assemble the rest of the host
   * (rules, checkpoints, the session machinery's handlers) right after; other requests wait for it (`ready`).
   * Default: resolve once everything is assembled.
   */
  answerEarly?: boolean;
  /**
   * Loads the model client ahead of the first turn once no request came for `afterQuietMs` (default: 1 s,
   * `warmModelClient`; none when `modelClient` is given, since the host then never loads it); false: with
   * the first turn.
   */
  warmUp?: { afterQuietMs: number; warm: () => Promise<void> } | false;
}

/** Something a person should come back for, or (`answered`) no longer needs to. */
export interface AttentionEvent {
  /**
   * `approval`: a command or a patch waits on the user; `question`: the agent asks them something;
   * `answered`: nothing waits on them in the thread any more; `turnFinished`: a turn ended (`status`).
   */
  kind: 'approval' | 'question' | 'answered' | 'turnFinished';
  threadId: string;
  /** The thread's working directory: picks the project window a click on the notification focuses. */
  cwd: string;
  /** The thread's title (`threadTitle`; 'Weft' for a thread no longer loaded); the notification's title. */
  title: string;
  /** One line on what is waiting or how the turn ended; empty = a generic line is shown. */
  detail: string;
  /** For `turnFinished`: how long the turn ran. Omitted = unknown (treated as short). */
  durationMs?: number;
  /** For `turnFinished`: how it ended. */
  status?: 'completed' | 'failed' | 'interrupted';
}

export interface AppHost {
  readonly host: ConnectionHost;
  /**
   * Resolves once the whole host is assembled (at once unless `answerEarly`); rejects with why it could not
   * be (its requests then fail with that).
   */
  readonly ready: Promise<void>;
  /** Threads needing the person (an approval or question waits, a turn finished); returns the unsubscribe. */
  onAttention(listener: (event: AttentionEvent) => void): () => void;
  /** Gives `weft/automations/runNow` the scheduler that runs automations in this host (null: none). */
  setAutomationRunNow(runNow: AutomationRunNow | null): void;
  /**
   * Tells every client that a run of an automation ended (`weft/automations/runEnded`), as recorded; once
   * per run, whether this or the watch of the runs histories (runs of other processes) tells it first.
   */
  announceAutomationRun(automationId: string, runId: string): Promise<void>;
  /**
   * Each run of an automation that ended, as its clients are told it (`weft/automations/runEnded`), once
   * per run; returns the unsubscribe (the desktop app's OS notifications).
   */
  onAutomationRunEnded(listener: (ended: WeftAutomationRunEndedNotification) => void): () => void;
  /** How many threads wait on the person (approvals, questions), on every change (for a dock badge). */
  onWaitingCountChanged(listener: (count: number) => void): () => void;
  /** Unloads each thread as soon as nobody watches it (`ThreadManager.unloadWhenUnwatched`). */
  unloadWhenUnwatched(): void;
  /**
   * Disconnects the clients (ending their terminals), unloads the threads (their turns, commands, MCP
   * servers, rollouts), then closes the checkpoints and the index. Called before the app quits.
   */
  close(): Promise<void>;
}

/**
 * The whole agent behind the protocol: store, threads, sessions and the dispatcher. What it opens is kept
 * in one store, released newest first when it closes (or at once when it could not be assembled).
 */
export async function createAppHost(options: AppHostOptions = {}): Promise<AppHost> {
  const owned = new DisposableStore();
  try {
    return await assembleAppHost(options, owned);
  } catch (error) {
    await owned.dispose().catch(() => undefined);
    throw error;
  }
}

async function assembleAppHost(options: AppHostOptions, owned: DisposableStore): Promise<AppHost> {
  // The thread pool's background work gives way to the main thread (util/pool-priority.ts); done while the
  // host is assembled, and before the first answer.
  const poolLowered = lowerPoolPriority();
  const env = options.env ?? process.env;
  const weftHome = options.weftHome ?? resolveWeftHome(env);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // A thread that stops (or resumes) being saved is told to every client, not only to the log.
  const saveWarnings: { notify: (threadId: string, message: string) => void } = { notify: () => undefined };
  // The index is repaired once the host is assembled (see ThreadStore.repairInBackground); the check's
  // reading starts now, in a worker thread (ThreadStore.startIndexCheck).
  const store = owned.add(
    ThreadStore.open(weftHome, {
      repair: false,
      onWarning: (m) => log(`weft app-server: warning: ${m}`),
      onThreadWarning: (threadId, m) => {
        log(`weft app-server: warning: ${m}`);
        saveWarnings.notify(threadId, m);
      },
    }),
    'the thread index',
  );
  store.startIndexCheck();
  const defaultCwd = options.cwd ?? process.cwd();
  // Released in this order, newest first: the prune and the runs' watch, the clients, the threads, the spawn
  // host, then the checkpoints and the index. The checkpoints and the last two are opened once the first
  // answers are out. The spawn host (started with the rest, if at all) is waited for: left to notice on its
  // own that this process is gone, it would outlive it for a moment, still writing (Node's compile cache).
  const checkpointsSlot = owned.add(new DisposableStore(), 'the checkpoints');
  owned.add({ dispose: () => stopSpawnHost() }, 'the spawn host');
  const manager = new ThreadManager({
    log,
    unloadAfterMs: options.unloadAfterMs ?? UNLOAD_AFTER_MS,
    maxUnwatched: options.maxUnwatchedThreads ?? MAX_UNWATCHED_THREADS,
  });
  owned.add(manager, 'the loaded threads');
  saveWarnings.notify = (threadId, message) => manager.broadcast({ method: 'warning', params: { threadId, message } });
  // A list answered while a new index was being built said so (`weftIndexing`); this says it is whole now.
  store.onIndexed(() => manager.broadcast({ method: 'weft/threads/indexed', params: {} }));
  const attention = new Set<(e: AttentionEvent) => void>();
  const runEndListeners = new Set<(ended: WeftAutomationRunEndedNotification) => void>();
  const waitingListeners = new Set<(count: number) => void>();
  const waiting = new Set<string>();
  const notifyAttention = (threadId: string, n: ServerNotification): void => {
    const thread = manager.get(threadId)?.thread;
    const base = { threadId, cwd: thread?.cwd ?? '', title: thread === undefined ? 'Weft' : threadTitle(thread) };
    if (n.method === 'thread/status/changed') {
      const flags = n.params.status.type === 'active' ? n.params.status.activeFlags : [];
      const was = waiting.has(threadId);
      if (flags.length > 0) waiting.add(threadId);
      else waiting.delete(threadId);
      if (was !== waiting.has(threadId)) for (const l of waitingListeners) l(waiting.size);
      if (flags.length > 0 && !was) {
        const question = flags.includes('waitingOnUserInput');
        const detail = question ? 'The agent has a question for you.' : 'An approval is waiting for you.';
        for (const l of attention) l({ ...base, kind: question ? 'question' : 'approval', detail });
      }
      if (flags.length === 0 && was) for (const l of attention) l({ ...base, kind: 'answered', detail: '' });
    }
    if (n.method === 'turn/completed') {
      const t = n.params.turn;
      const detail =
        t.status === 'failed'
          ? `The turn failed: ${t.error?.message ?? 'unknown error'}`
          : t.status === 'interrupted'
            ? 'The turn was stopped.'
            : 'The turn finished.';
      const status = t.status === 'inProgress' ? 'completed' : t.status;
      for (const l of attention)
        l({ ...base, kind: 'turnFinished', detail, status, durationMs: t.durationMs ?? undefined });
    }
  };
  const readStates = createReadStates(store, manager, log);
  const folders = new ClientFolders();
  const signInsSlot = owned.add(new DisposableStore(), 'the MCP sign-ins');
  const tail = new DisposableStore();
  let automationRunNow: AutomationRunNow | null = null;
  // What the first requests need (the index, the loaded threads) is ready now; the rest of the host
  // (app-host-rest.ts) is imported and assembled once the first answers are out (`answerEarly`), and every
  // other request waits for it.
  let assembled: AssembledRest | null = null;
  const rest = async (): Promise<HandlerTable> => {
    await inSteps(REST_IN_STEPS);
    const { assembleRest } = await import('./app-host-rest');
    assembled = await assembleRest({
      weftHome,
      env,
      defaultCwd,
      log,
      modelClient: options.modelClient,
      keyStore: options.keyStore,
      pruneWorktreesAfterMs: options.pruneWorktreesAfterMs,
      onWorktreesPruned: options.onWorktreesPruned,
      store,
      manager,
      readStates,
      folders,
      onSessionEvent: notifyAttention,
      onRunEnded: (ended) => {
        for (const listener of runEndListeners) listener(ended);
      },
      runNow: () => automationRunNow,
      checkpointsSlot,
      signInsSlot,
      tail,
    });
    return assembled.handlers;
  };
  const late = lateHandlers(rest);
  // Armed once the whole host is there (assembling it is no quiet time).
  let warmUp: QuietWindow | null = null;
  let closing = false;
  const warmOptions =
    options.warmUp ??
    (options.modelClient === undefined ? { afterQuietMs: WARM_QUIET_MS, warm: warmModelClient } : false);
  const armWarmUp = (): void => {
    if (warmOptions === false || closing || warmUp !== null) return;
    warmUp = whenQuiet(warmOptions.afterQuietMs, null, () => {
      warmOptions
        .warm()
        // Assembled, warmed and quiet: the code compiled for all that is kept for the next start (once per
        // build, when started by bin/weft.js; see util/compiled-code.ts).
        .then(() => (closing ? undefined : saveCompiledCode()))
        .catch((error: unknown) => log(`weft: could not load the model client ahead: ${errorMessage(error)}`));
    });
  };
  const touched = (): void => {
    late.touch();
    warmUp?.touch();
  };
  let warmed = false;
  await poolLowered;
  const dispatcher = new RpcDispatcher({
    // Until the rest is there, the lists are answered from the index and the loaded threads.
    handlers: { ...late.handlers, ...threadListHandlers({ store, manager, folders }) },
    serverInfo: () => ({
      userAgent: `weft/${VERSION} (${platform()}; node ${process.versions.node})`,
      codexHome: weftHome,
      platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
      platformOs: process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : 'linux',
      weftVersion: VERSION,
    }),
    log,
    // While the client reads the answer to `initialize`, the first list is prepared: its params' schema
    // built and compiled, the list's statement prepared and its code warmed (a few ms, once).
    afterInitialize: () => {
      touched();
      if (warmed) return;
      warmed = true;
      setImmediate(() => {
        ClientRequests['thread/list'].params.safeParse({ limit: 25 });
        try {
          store.list({ limit: 25 });
        } catch {
          // The client's own list meets the same problem and says what it is.
        }
      });
    },
    inForeground: (work) => {
      touched();
      return store.inForeground(work);
    },
    threadQueue: manager,
  });
  owned.add(dispatcher, 'the connected clients');
  owned.add(tail, 'the watch of the automations runs and the worktree clean-up');
  store.repairInBackground();
  // An Undo that a crash cut short is finished before anything is answered: its thread's turns and files
  // change.
  if (options.answerEarly === true && !restoresPending(weftHome)) {
    late.ready.catch((error: unknown) => log(`weft app-server: ${errorMessage(error)}`));
    late.startWhenQuiet(REST_QUIET_MS, REST_LATEST_MS);
  } else await late.start();
  late.ready.then(armWarmUp, () => undefined);
  // A host that started: the code compiled for it is worth keeping for the next start, at exit if it was
  // not saved once quiet (when started by bin/weft.js; see util/compiled-code.ts).
  keepCompiledCode();
  return {
    host: dispatcher,
    onAttention: (listener) => {
      attention.add(listener);
      return () => attention.delete(listener);
    },
    setAutomationRunNow: (runNow) => {
      automationRunNow = runNow;
    },
    announceAutomationRun: async (automationId, runId) => {
      await late.ready;
      await assembled?.announceAutomationRun(automationId, runId);
    },
    onAutomationRunEnded: (listener) => {
      runEndListeners.add(listener);
      return () => runEndListeners.delete(listener);
    },
    unloadWhenUnwatched: () => manager.unloadWhenUnwatched(),
    onWaitingCountChanged: (listener) => {
      waitingListeners.add(listener);
      return () => waitingListeners.delete(listener);
    },
    ready: late.ready,
    // What the rest of the host opens is registered by the time it is ready (or failed).
    close: () => {
      late.stopWaiting();
      closing = true;
      warmUp?.stop();
      return late.settled().then(() => owned.dispose());
    },
  };
}
