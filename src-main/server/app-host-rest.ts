// The part of the app host that the first answers do not need (app-host.ts): the approval rules, the
// checkpoints with the config's limits, an interrupted Undo finished, every request handler beyond the
// lists (and the session machinery, model clients and tools they import), the watch of the automations'
// runs and the worktree clean-up. Imported and assembled once the host answers, so that `initialize` and
// the first `thread/list` wait for none of it.
import type { WeftAutomationRunEndedNotification, ServerNotification } from '../../src-preload/protocol';
import { CheckpointService } from '../checkpoints/service';
import { cleanForkLeftovers, describeForkLeftovers } from '../checkpoints/fork-leftovers';
import { checkpointSettings } from '../checkpoints/settings';
import { loadConfig } from '../config';
import { FileKeyStore, type KeyStore } from '../config/key-store';
import { rulesDir } from '../safety/approvals/rules';
import type { ThreadStore } from '../store/thread-store';
import { sharedRuleStore } from '../tools/safety-services';
import { McpLogins, mcpHandlers } from './handlers/mcp';
import type { HandlerTable } from './dispatcher';
import type { ClientFolders } from './client-folders';
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
import { KeptTerminals, terminalGraceMs } from '../terminal/kept-terminals';
import { browserLiveHandlers } from './handlers/browser-live';
import { usageHandlers } from './handlers/usage';
import { automationHandlers, type AutomationRunNow } from './handlers/automations';
import { automationInboxHandlers } from './handlers/automation-inbox';
import { findInboxItem, notifyOf, shouldNotify } from '../automations/inbox';
import { usableAutomation } from '../automations/store';
import { watchRunEnds } from '../automations/run-watch';
import type { ReadStates } from './read-states';
import { finishInterruptedRestores } from './restore-recovery';
import { DEFAULT_PRUNE_AFTER_DAYS, pruneOnStart, type PruneOutcome } from './worktree-cleanup';
import type { HostEnvironment } from './thread-factory';
import type { ThreadManager } from './thread-manager';
import type { DisposableStore } from '../util/disposable';
import { errorMessage } from '../util/errors';
import { preferSpawnHost, spawnHostConnection } from '../util/spawn-host/connection';

/** What the early part of the host (app-host.ts) made, and where the rest puts what it opens. */
export interface RestInput {
  weftHome: string;
  env: NodeJS.ProcessEnv;
  defaultCwd: string;
  log: (line: string) => void;
  modelClient: HostEnvironment['modelClient'];
  keyStore: KeyStore | undefined;
  pruneWorktreesAfterMs: number | undefined;
  onWorktreesPruned: ((outcomes: PruneOutcome[]) => void) | undefined;
  store: ThreadStore;
  manager: ThreadManager;
  readStates: ReadStates;
  folders: ClientFolders;
  onSessionEvent: (threadId: string, n: ServerNotification) => void;
  /** Told each run of an automation that ended, as its clients are (`weft/automations/runEnded`). */
  onRunEnded: (ended: WeftAutomationRunEndedNotification) => void;
  /** The scheduler `weft/automations/runNow` runs with (null: none). */
  runNow: () => AutomationRunNow | null;
  /** Released after the threads, before the index. */
  checkpointsSlot: DisposableStore;
  /** Released after the clients, before the threads (the MCP sign-ins, the terminals kept for dropped links). */
  signInsSlot: DisposableStore;
  /** Released first. */
  tail: DisposableStore;
}

export interface AssembledRest {
  handlers: HandlerTable;
  /** Tells the clients that a run ended, once per run however many watchers saw it end. */
  announceAutomationRun(automationId: string, runId: string): Promise<void>;
}

export async function assembleRest(input: RestInput): Promise<AssembledRest> {
  const { weftHome, env, defaultCwd, log, store, manager, readStates, folders } = input;
  // The spawn host is started first, while this process is smallest: forking costs more as it grows.
  preferSpawnHost();
  void spawnHostConnection();
  const rules = await sharedRuleStore(rulesDir(weftHome), (w) => log(`weft app-server: warning: ${w}`));
  const checkpoints = await openCheckpoints(weftHome, defaultCwd, env, log);
  input.checkpointsSlot.add(checkpoints.service, 'the checkpoints');
  // An Undo a crash cut short is finished (files, then the thread's turns) before anyone is answered (a
  // host with a journal waiting does not answer early: `restoresPending`).
  await finishInterruptedRestores(checkpoints.service, () => ({ store, release: () => Promise.resolve() }), log);
  const environment: HostEnvironment = {
    weftHome,
    env,
    defaultCwd,
    rules,
    log,
    modelClient: input.modelClient,
    keyStore: input.keyStore ?? new FileKeyStore(weftHome),
    checkpoints,
  };
  const context = { store, manager, environment, readStates, onSessionEvent: input.onSessionEvent, folders };
  const mcpLogins = input.signInsSlot.add(new McpLogins(), 'the MCP sign-ins');
  const handlers: HandlerTable = {
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
    ...terminalHandlers(
      context,
      // Released after the clients, whose dropped terminals it may have been handed as they closed.
      input.signInsSlot.add(new KeptTerminals(terminalGraceMs(env), log), 'the terminals kept for dropped links'),
    ),
    ...browserLiveHandlers(context),
    ...gitHandlers(context),
    ...reviewHandlers(context),
    ...usageHandlers(context),
    ...automationHandlers({
      weftHome,
      now: () => Date.now(),
      runNow: input.runNow,
      seen: (client) => manager.seen(client),
    }),
    ...automationInboxHandlers(context, () => Date.now()),
    initialize: async () => {
      throw new Error('initialize is handled by the dispatcher');
    },
    'fs/readFile': (params, client) =>
      readFileForClient(params.path, () => [...readableRoots(environment, manager), ...folders.of(client)]),
  };
  const tellRunEnded = async (automationId: string, runId: string): Promise<void> => {
    const automationRun = await findInboxItem(weftHome, automationId, runId);
    const notify = shouldNotify(notifyOf(await usableAutomation(weftHome, automationId)), automationRun.run);
    manager.broadcast({ method: 'weft/automations/runEnded', params: { automationRun, notify } });
    input.onRunEnded({ automationRun, notify });
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
  input.tail.add({ dispose: () => runEnds.close() }, 'the watch of the automations runs');
  const pruning = schedulePrune({
    weftHome,
    env,
    defaultCwd,
    store,
    checkpoints,
    log,
    afterMs: input.pruneWorktreesAfterMs,
    onPruned: input.onWorktreesPruned,
  });
  // Added last, so stopped first: a prune under way finishes before the store and checkpoints close.
  input.tail.add({ dispose: () => pruning.stop() }, 'the worktree clean-up');
  return {
    handlers,
    announceAutomationRun: async (automationId, runId) => {
      if (runEnds.claim(automationId, runId)) await tellRunEnded(automationId, runId);
    },
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
  afterMs: number | undefined;
  onPruned: ((outcomes: PruneOutcome[]) => void) | undefined;
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
    input.onPruned?.(outcomes);
  };
  const timer = setTimeout(() => {
    running = run().catch((error: unknown) =>
      input.log(
        `weft app-server: warning: could not prune worktrees: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }, input.afterMs ?? 60_000);
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(timer);
      await running;
    },
  };
}
