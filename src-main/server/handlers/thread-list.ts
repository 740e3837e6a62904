// `thread/list` and `thread/loaded/list`: what a client asks first, answered from the index and the loaded
// threads alone. Kept apart from the other thread handlers so that a host can answer them before the rest
// of it (rules, checkpoints, the session machinery) is ready (app-host.ts).
import { resolve } from 'node:path';
import type { Thread } from '../../../src-preload/protocol';
import { searchSnippets } from '../../store/search-snippet';
import type { HandlerTable } from '../dispatcher';
import type { HandlerContext } from './context';
import { storeCallAsync } from './store-call';

/** What a loaded thread knows better than its saved form: its status, its last turn, its read state. */
export function liveState(live: Thread): Pick<Thread, 'status' | 'weftLastTurnStatus' | 'weftReadState'> {
  return { status: live.status, weftLastTurnStatus: live.weftLastTurnStatus, weftReadState: live.weftReadState };
}

export function threadListHandlers(
  ctx: Pick<HandlerContext, 'store' | 'manager' | 'folders'>,
): Pick<HandlerTable, 'thread/list' | 'thread/loaded/list'> {
  const { store, manager } = ctx;

  /** Loaded threads of `cwd` (a project: its worktree threads too) with an approval or a question waiting. */
  const waitingThreads = (cwd: string | readonly string[] | null | undefined): Thread[] => {
    const folders =
      cwd === null || cwd === undefined ? null : (typeof cwd === 'string' ? [cwd] : cwd).map((c) => resolve(c));
    return manager.loadedIds().flatMap((id) => {
      const live = manager.liveThread(id, false);
      if (live === null || live.status.type !== 'active' || live.status.activeFlags.length === 0) return [];
      const project = live.weftWorktree?.projectRoot ?? live.cwd;
      return folders === null || folders.includes(resolve(live.cwd)) || folders.includes(resolve(project))
        ? [live]
        : [];
    });
  };

  return {
    'thread/list': async (params, client) => {
      manager.seen(client);
      ctx.folders.name(client, params.cwd);
      const page = await storeCallAsync(() => store.listComplete(params));
      const term = params.searchTerm?.trim() ?? '';
      const snippets = term === '' ? null : await searchSnippets(page.data, term);
      const listed = page.data.map((t) => {
        const live = manager.liveThread(t.id, false);
        return live === null ? t : { ...t, ...liveState(live) };
      });
      // What waits on the person in a loaded thread (an approval, a question) is not in the index: those
      // threads come first, on the first page.
      const waiting =
        params.weftNeedsYou === true && !params.cursor && params.archived !== true
          ? waitingThreads(params.cwd).filter((t) => !listed.some((l) => l.id === t.id))
          : [];
      return {
        data: [...waiting, ...listed],
        nextCursor: page.nextCursor,
        // A new index is being built: this page holds what is indexed so far (weft/threads/indexed follows).
        ...(page.indexing ? { weftIndexing: true } : {}),
        ...(snippets === null ? {} : { weftSnippets: snippets }),
      };
    },

    'thread/loaded/list': async () => ({ data: manager.loadedIds(), nextCursor: null }),
  };
}
