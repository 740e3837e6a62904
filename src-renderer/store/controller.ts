// The app's actions: everything the UI asks of Weft goes through here, and everything Weft says comes in
// here (notifications batched per frame into the reducers, server requests into the approval queue). The
// actions live by feature in actions/ (threads, turns, approvals, settings, projects, ui) and are composed
// into this one object, which views reach through `useController()`.
import { createApprovals } from './actions/approvals';
import { createBoardActions } from './actions/board';
import { createActionContext, type ControllerEnv } from './actions/context';
import { createProjects } from './actions/projects';
import { createSettings } from './actions/settings';
import { createThreads } from './actions/threads';
import { createTurns } from './actions/turns';
import { createUiActions } from './actions/ui';
import { clearServerRequests } from './approvals';
import { readLocation } from './location';
import { ALWAYS_VISIBLE, createReadMarks } from './read-marks';
import { setData, setUi } from './store';
import type { AppStore } from './store';
import type { WeftClient } from '../client/types';

export type Controller = ReturnType<typeof createController>;

export function createController(client: WeftClient, store: AppStore, env: ControllerEnv) {
  const ctx = createActionContext(client, store, env);
  const { get, open, batcher, lists } = ctx;
  const disposers: (() => void)[] = [];
  const settings = createSettings(ctx);
  const threads = createThreads(ctx, settings);
  const approvals = createApprovals(ctx);
  const projects = createProjects(ctx, settings, threads);

  /** Listens to the connection: notifications, server requests, its state and each (re)connection. */
  const start = (): void => {
    disposers.push(
      client.onNotification((notification) => {
        // A new thread index is whole now: the lists taken while it was built were partial.
        if (notification.method === 'weft/threads/indexed') {
          void lists.refresh();
          void lists.refreshElsewhere();
        }
        if (notification.method === 'weft/thread/turnsRestored') threads.rereadThread(notification.params.threadId);
        batcher.push(notification);
      }),
    );
    disposers.push(client.onServerRequest(approvals.onServerRequest));
    disposers.push(client.onConnection((connection) => setUi(store, { connection })));
    disposers.push(createReadMarks(client, store, env.visibility ?? ALWAYS_VISIBLE));
    disposers.push(
      client.onReady(({ initialize, reconnect }) => {
        setUi(store, { environment: initialize.weftEnvironment?.name ?? null });
        if (reconnect) {
          // The server let go of everything the old connection held: shown threads are resumed anew.
          open.reset();
          setData(store, clearServerRequests);
        }
        void lists.refresh();
        void lists.refreshElsewhere();
        if (!reconnect) void settings.loadDefaults();
        void settings.actions.refreshProviders();
        const active = get().ui.activeThreadId ?? readLocation(env.href()).threadId;
        if (active !== null && get().data.cwd !== null) void threads.showThread(active, true);
      }),
    );
  };

  const dispose = (): void => {
    batcher.dispose();
    for (const stop of disposers.splice(0)) stop();
  };

  return {
    start,
    dispose,
    ...projects,
    ...createBoardActions(ctx, projects),
    ...threads.actions,
    ...createTurns(ctx, settings, threads),
    ...approvals.actions,
    ...settings.actions,
    ...createUiActions(ctx),
  };
}
