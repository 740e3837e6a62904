// What every group of the controller's actions shares: the client and the store, the open threads, the
// notification batcher, the list loader, toasts and the page address.
import { WeftInstallableData, type ServerNotification } from '../../../src-preload/protocol';
import { RpcError } from '../../client/types';
import type { WeftClient } from '../../client/types';
import { createFrameBatcher, type FrameBatcher, type FrameScheduler } from '../frame-batcher';
import { createListLoader, type Attempt } from '../list-loader';
import { withLocation, type KeyValueStorage } from '../location';
import { createOpenThreads, type OpenThreads } from '../open-threads';
import type { PageVisibility } from '../read-marks';
import { reduceNotifications } from '../reduce';
import { setData, setUi, type AppStore, type StoreState, type ToastKind } from '../store';

export interface ControllerEnv {
  scheduler: FrameScheduler;
  /** The page address now. */
  href(): string;
  /** Replaces the page address without reloading. */
  replaceHref(href: string): void;
  storage: KeyValueStorage | null;
  /** Whether the person can see the page (the thread shown is marked read only then); always, when absent. */
  visibility?: PageVisibility;
}

export interface ActionContext {
  client: WeftClient;
  store: AppStore;
  env: ControllerEnv;
  get(): StoreState;
  open: OpenThreads;
  /** Notifications batched per frame into the reducers; `flush` before a snapshot replaces what they built. */
  batcher: FrameBatcher<ServerNotification>;
  lists: ReturnType<typeof createListLoader>;
  toast(message: string, kind?: ToastKind): void;
  /** Runs `run`; a failure becomes an error toast starting with `what`, and the result undefined. */
  attempt: Attempt;
  /** Puts the project and the shown thread in the page address. */
  syncLocation(): void;
}

export function createActionContext(client: WeftClient, store: AppStore, env: ControllerEnv): ActionContext {
  const open = createOpenThreads(client, store);
  const batcher = createFrameBatcher<ServerNotification>(env.scheduler, (batch) => {
    setData(store, (data) => reduceNotifications(data, batch));
    // A thread left while a turn ran is let go once the turn has ended and nothing waits on the person.
    open.heard(batch);
    open.tidy();
  });
  let toastId = 0;
  const get = (): StoreState => store.getState();

  const toast = (message: string, kind: ToastKind = 'error'): void => {
    toastId += 1;
    const id = toastId;
    setUi(store, (ui) => ({ toasts: [...ui.toasts, { id, message, kind }].slice(-3) }));
  };

  const attempt = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // An environment without a Weft that can serve this one: the install is offered (once), not only said.
      const install = error instanceof RpcError ? WeftInstallableData.safeParse(error.data) : null;
      if (install?.success === true && get().ui.environment === null) {
        const { installOffer, installOfferDismissed } = get().ui;
        const environment = install.data.weftInstall.environment;
        if (installOffer?.offer.environment !== environment && !installOfferDismissed.includes(environment))
          setUi(store, { installOffer: { offer: install.data.weftInstall, message } });
        return undefined;
      }
      // The page's token no longer works: the banner says so once, its requests' failures do not again.
      const connection = client.state;
      if (connection.phase === 'failed' && connection.reason === 'token') return undefined;
      toast(`${what}: ${message}`);
      return undefined;
    }
  };

  const syncLocation = (): void => {
    const { data, ui } = get();
    const next = withLocation(env.href(), { cwd: data.cwd, threadId: ui.activeThreadId });
    if (next !== env.href()) env.replaceHref(next);
  };

  const lists = createListLoader(client, store, attempt);
  return { client, store, env, get, open, batcher, lists, toast, attempt, syncLocation };
}
