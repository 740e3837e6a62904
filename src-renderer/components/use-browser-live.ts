// The live page of a thread's browser while the browser panel shows it: watches it (`weft/browser/live/start`)
// on mount and stops (`weft/browser/live/stop`) on unmount, keeping the latest frame; `send` plays a person's
// input in the page. A thread whose browser cannot be watched (not loaded here, browser tools off) has no
// live page, and the panel shows the latest screenshot instead.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { WeftBrowserLiveFrame, WeftBrowserLiveInput } from '../../src-preload/protocol';
import { useController } from '../store/app-context';

export interface BrowserLive {
  /** The page's picture now, or null: no page open (yet), or the thread's browser cannot be watched. */
  frame: WeftBrowserLiveFrame | null;
  /** Plays a click, wheel or keys in the page; resolves false when the page did not take it. */
  send(input: WeftBrowserLiveInput): Promise<boolean>;
}

export function useBrowserLive(threadId: string | null): BrowserLive {
  const controller = useController();
  // The latest frame of the thread watched (a frame of the thread watched before is not shown).
  const [latest, setLatest] = useState<WeftBrowserLiveFrame | null>(null);
  const frame = latest !== null && latest.threadId === threadId ? latest : null;
  useEffect(() => {
    if (threadId === null) return;
    let watching = true;
    const stop = controller.onNotification((n) => {
      if (!watching) return;
      if (n.method === 'weft/browser/live/frame' && n.params.threadId === threadId) setLatest(n.params);
      if (n.method === 'weft/browser/live/closed' && n.params.threadId === threadId) setLatest(null);
    });
    controller.request('weft/browser/live/start', { threadId }).catch(() => undefined);
    return () => {
      watching = false;
      stop();
      void controller.request('weft/browser/live/stop', { threadId }).catch(() => undefined);
    };
  }, [controller, threadId]);
  // One after another, so that keys typed quickly reach the page in the order they were typed.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const send = useCallback(
    (input: WeftBrowserLiveInput): Promise<boolean> => {
      if (threadId === null) return Promise.resolve(false);
      const sent = queue.current.then(() =>
        controller.request('weft/browser/live/input', { threadId, input }).then(
          () => true,
          () => false,
        ),
      );
      queue.current = sent;
      return sent;
    },
    [controller, threadId],
  );
  return { frame, send };
}
