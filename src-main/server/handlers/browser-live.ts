import type { SessionOptions } from '../../core/types';
import { errorMessage } from '../../util/errors';
import type { Disposable } from '../../util/disposable';
import type { Client, HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';

type BrowserLiveHandlers = Pick<
  HandlerTable,
  'weft/browser/live/start' | 'weft/browser/live/stop' | 'weft/browser/live/input'
>;

/**
 * `weft/browser/live/*`: a connection watches a loaded thread's browser (frames go to it alone, until it
 * stops, the thread lets its browser go, or the connection closes) and plays a person's input in its page.
 */
export function browserLiveHandlers(ctx: HandlerContext): BrowserLiveHandlers {
  const { manager } = ctx;
  /** Per connection, per thread: what stops its watching. */
  const watching = new Map<Client, Map<string, Disposable>>();

  const liveOf = (threadId: string): NonNullable<SessionOptions['browserLive']> => {
    const entry = manager.get(threadId);
    if (!entry) throw invalidParams(`thread ${threadId} is not loaded; call thread/resume first`);
    const live = entry.session.options.browserLive;
    if (!live) throw invalidRequest(`thread ${threadId} has no browser (the browser tools are off)`);
    return live;
  };
  const stop = (client: Client, threadId: string): void => {
    const watch = watching.get(client)?.get(threadId);
    if (watch === undefined) return;
    watching.get(client)?.delete(threadId);
    client.resources.delete(watch);
    void watch.dispose();
  };

  return {
    'weft/browser/live/start': (params, client) => {
      const { threadId } = params;
      const live = liveOf(threadId);
      stop(client, threadId);
      const unwatch = live.watch({
        frame: (frame) => client.notify({ method: 'weft/browser/live/frame', params: { threadId, ...frame } }),
        closed: () => client.notify({ method: 'weft/browser/live/closed', params: { threadId } }),
      });
      const watch: Disposable = { dispose: () => unwatch() };
      let mine = watching.get(client);
      if (mine === undefined) {
        mine = new Map();
        watching.set(client, mine);
        client.onClose(() => watching.delete(client));
      }
      mine.set(threadId, watch);
      client.resources.add(watch, `its live view of thread ${threadId}'s browser`);
      return Promise.resolve({ page: live.showing, url: live.url });
    },
    'weft/browser/live/stop': (params, client) => {
      stop(client, params.threadId);
      return Promise.resolve({});
    },
    'weft/browser/live/input': async (params) => {
      const live = liveOf(params.threadId);
      try {
        await live.input(params.input);
      } catch (error) {
        throw invalidRequest(`the browser could not take that input: ${errorMessage(error)}`);
      }
      return {};
    },
  };
}
