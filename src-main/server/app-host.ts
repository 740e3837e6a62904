import { platform } from 'node:os';
import {
  threadTitle,
  type ServerNotification,
  type WeftAutomationRunEndedNotification,
} from '../../src-preload/protocol';
import { CheckpointService } from '../checkpoints/service';
import { cleanForkLeftovers, describeForkLeftovers } from '../checkpoints/fork-leftovers';
import { checkpointSettings } from '../checkpoints/settings';
import { loadConfig } from '../config';
import { resolveWeftHome } from '../config/home';
import { FileKeyStore, type KeyStore } from '../config/key-store';
import { rulesDir } from '../safety/approvals/rules';
import { ThreadStore } from '../store/thread-store';
import { sharedRuleStore } from '../tools/safety-services';
import { McpLogins, mcpHandlers } from './handlers/mcp';
import { VERSION } from '../version';
import { RpcDispatcher } from './dispatcher';
import { ClientFolders } from './client-folders';
import { readFileForClient } from './file-access';
import { threadHandlers } from './handlers/threads';
import { checkpointHandlers } from './handlers/checkpoints';
import { forkHandlers } from './handlers/forks';
import { worktreeHandlers } from './handlers/worktrees';
import { serviceHandlers } from './handlers/services';
import { setupHandlers } from './handlers/setup';
import { environmentInstallHandlers } from './handlers/environment-install';
import { projectConfigHandlers } from './handlers/project-config';
import { hooksHandlers } from './handlers/hooks';
import { gitHandlers } from './handlers/git';
import { reviewHandlers } from './handlers/review';
import { turnHandlers } from './handlers/turns';
import { terminalHandlers } from './handlers/terminal';
import { browserLiveHandlers } from './handlers/browser-live';
import { usageHandlers } from './handlers/usage';
import { automationHandlers, type AutomationRunNow } from './handlers/automations';
import { automationInboxHandlers } from './handlers/automation-inbox';
import { findInboxItem, notifyOf, shouldNotify } from '../automations/inbox';
import { usableAutomation } from '../automations/store';
import { watchRunEnds } from '../automations/run-watch';
import { createReadStates } from './read-states';
import { finishInterruptedRestores } from './restore-recovery';
import { DEFAULT_PRUNE_AFTER_DAYS, pruneOnStart, type PruneOutcome } from './worktree-cleanup';
import type { HostEnvironment } from './thread-factory';
import { ThreadManager } from './thread-manager';
import type { ConnectionHost } from './transport';
import { DisposableStore } from '../util/disposable';
import { errorMessage } from '../util/errors';
import { spawnHostConnection } from '../util/spawn-host/connection';

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
  // The spawn host is started now, while this process is small: forking costs more as it grows.
  void spawnHostConnection();
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
  const rules = await sharedRuleStore(rulesDir(weftHome), (w) => log(`weft app-server: warning: ${w}`));
  const defaultCwd = options.cwd ?? process.cwd();
  const checkpoints = await openCheckpoints(weftHome, defaultCwd, env, log);
  owned.add(checkpoints.service, 'the checkpoints');
  // An Undo a crash cut short is finished (files, then the thread's turns) before anyone is answered.
  await finishInterruptedRestores(checkpoints.service, () => ({ store, release: () => Promise.resolve() }), log);
  const environment: HostEnvironment = {
    weftHome,
    env,
    defaultCwd,
    rules,
    log,
    modelClient: options.modelClient,
    keyStore: options.keyStore ?? new FileKeyStore(weftHome),
    checkpoints,
  };
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
  const context = { store, manager, environment, readStates, onSessionEvent: notifyAttention, folders };
  const mcpLogins = owned.add(new McpLogins(), 'the MCP sign-ins');
  let automationRunNow: AutomationRunNow | null = null;
  const dispatcher = new RpcDispatcher({
    handlers: {
      ...threadHandlers(context),
      ...turnHandlers(context),
      ...serviceHandlers(context),
      ...setupHandlers(context),
      ...environmentInstallHandlers(context),
      ...projectConfigHandlers(context),
      ...hooksHandlers(context),
      ...mcpHandlers(context, mcpLogins),
      ...checkpointHandlers(context),
      ...forkHandlers(context),
      ...worktreeHandlers(context),
      ...terminalHandlers(context),
      ...browserLiveHandlers(context),
      ...gitHandlers(context),
      ...reviewHandlers(context),
      ...usageHandlers(context),
      ...automationHandlers({
        weftHome,
        now: () => Date.now(),
        runNow: () => automationRunNow,
        seen: (client) => manager.seen(client),
      }),
      ...automationInboxHandlers(context, () => Date.now()),
      initialize: async () => {
        throw new Error('initialize is handled by the dispatcher');
      },
      'fs/readFile': (params, client) =>
        readFileForClient(params.path, () => [...readableRoots(environment, manager), ...folders.of(client)]),
    },
    serverInfo: () => ({
      userAgent: `weft/${VERSION} (${platform()}; node ${process.versions.node})`,
      codexHome: weftHome,
      platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
      platformOs: process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : 'linux',
      weftVersion: VERSION,
    }),
    log,
    inForeground: (work) => store.inForeground(work),
    threadQueue: manager,
  });
  owned.add(dispatcher, 'the connected clients');
  const tellRunEnded = async (automationId: string, runId: string): Promise<void> => {
    const automationRun = await findInboxItem(weftHome, automationId, runId);
    const notify = shouldNotify(notifyOf(await usableAutomation(weftHome, automationId)), automationRun.run);
    manager.broadcast({ method: 'weft/automations/runEnded', params: { automationRun, notify } });
    for (const listener of runEndListeners) listener({ automationRun, notify });
  };
  // Runs that end in other processes (a timer's `weft automations due`, another host) are told too.
  const runEnds = await watchRunEnds({
    weftHome,
    log,
    onEnded: (automationId, runId) =>
      void tellRunEnded(automationId, runId).catch((error: unknown) =>
        log(`weft automations: ${automationId}: the end of run ${runId} could not be told: ${errorMessage(error)}`),
      ),
  });
  owned.add({ dispose: () => runEnds.close() }, 'the watch of the automations runs');
  store.repairInBackground();
  const pruning = schedulePrune({ weftHome, env, defaultCwd, store, checkpoints, log, options });
  // Added last, so stopped first: a prune under way finishes before the store and checkpoints close.
  owned.add({ dispose: () => pruning.stop() }, 'the worktree clean-up');
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
      if (runEnds.claim(automationId, runId)) await tellRunEnded(automationId, runId);
    },
    onAutomationRunEnded: (listener) => {
      runEndListeners.add(listener);
      return () => runEndListeners.delete(listener);
    },
    onWaitingCountChanged: (listener) => {
      waitingListeners.add(listener);
      return () => waitingListeners.delete(listener);
    },
    close: () => owned.dispose(),
  };
}

/**
 * The folders `fs/readFile` may read for any client: the project, WEFT_HOME, and each loaded thread's cwd
 * and writable roots (and, for one client, the projects it listed threads of: `ClientFolders`).
 */
function readableRoots(environment: HostEnvironment, manager: ThreadManager): string[] {
  const roots = [environment.defaultCwd, environment.weftHome];
  for (const id of manager.loadedIds()) {
    const entry = manager.get(id);
    if (!entry) continue;
    const settings = entry.session.currentSettings;
    roots.push(entry.thread.cwd, settings.cwd);
    const policy = settings.sandboxPolicy;
    if (policy.type === 'workspaceWrite') roots.push(...(policy.writableRoots ?? []));
  }
  return roots;
}

/**
 * The checkpoint store of the Weft home, with the limits of the user's config (a config that cannot be
 * read leaves the defaults; the thread that loads it reports the error).
 */
async function openCheckpoints(
  weftHome: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<{ service: CheckpointService; worktreesDir: string }> {
  let settings = checkpointSettings({}, weftHome);
  try {
    settings = checkpointSettings((await loadConfig({ weftHome, cwd, env })).config, weftHome);
  } catch (error) {
    log(
      `weft app-server: warning: checkpoints use their default limits: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const service = new CheckpointService(settings.service);
  // What forks a crash interrupted left (folders, worktrees, branches), cleaned once per start.
  void cleanForkLeftovers({ worktreesDir: settings.worktreesDir, forks: service.forks, blobs: service.blobs }).then(
    (report) => {
      for (const line of describeForkLeftovers(report)) log(`weft app-server: ${line}`);
    },
    (error: unknown) =>
      log(`weft app-server: warning: could not look for what interrupted forks left: ${String(error)}`),
  );
  // Retention and collection once per start, off the start-up path.
  setTimeout(() => {
    service
      .gc()
      .catch((error: unknown) =>
        log(
          `weft app-server: warning: checkpoint collection failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  }, 60_000).unref();
  return { service, worktreesDir: settings.worktreesDir };
}

/**
 * Once per start, after `pruneWorktreesAfterMs`: the worktrees of worktree threads whose threads are all
 * archived and idle for `[worktree] prune_after_days`, whose branch is merged or empty and that hold no
 * work found nowhere else are removed (`weft worktrees prune` without `--yes`). `stop` cancels it or waits
 * for it to end.
 */
function schedulePrune(input: {
  weftHome: string;
  env: NodeJS.ProcessEnv;
  defaultCwd: string;
  store: ThreadStore;
  checkpoints: { service: CheckpointService; worktreesDir: string };
  log: (line: string) => void;
  options: AppHostOptions;
}): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const run = async (): Promise<void> => {
    const { config } = await loadConfig({ weftHome: input.weftHome, cwd: input.defaultCwd, env: input.env });
    const outcomes = await pruneOnStart({
      store: input.store,
      worktreesDir: input.checkpoints.worktreesDir,
      days: config.worktree?.prune_after_days ?? DEFAULT_PRUNE_AFTER_DAYS,
      forks: input.checkpoints.service.forks,
      log: input.log,
    });
    input.options.onWorktreesPruned?.(outcomes);
  };
  const timer = setTimeout(() => {
    running = run().catch((error: unknown) =>
      input.log(
        `weft app-server: warning: could not prune worktrees: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }, input.options.pruneWorktreesAfterMs ?? 60_000);
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(timer);
      await running;
    },
  };
}
