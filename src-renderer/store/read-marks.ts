// Reading a thread marks it read: the thread shown, in a page the person can see, is marked read on the
// server (`thread/readState/update`) whenever it has something unread — when it is opened, when a turn
// of it ends while it is shown, when the page comes back into view. Every client hears of it, so the
// board's "done" and "failed" marks go where the person has looked.
import type { WeftClient } from '../client/types';
import { newDraft } from './draft';
import { setData, type AppStore } from './store';
import { setReadState } from './thread-list';

/** Whether the person can see the page, and news of when that changes. */
export interface PageVisibility {
  visible(): boolean;
  onChange(listener: () => void): () => void;
}

/** A page always in view (tests, hosts without a document). */
export const ALWAYS_VISIBLE: PageVisibility = { visible: () => true, onChange: () => () => undefined };

export function createReadMarks(client: WeftClient, store: AppStore, page: PageVisibility): () => void {
  /** Marks asked for, as `threadId@revision`: each read state is marked once. */
  const asked = new Set<string>();
  const check = (): void => {
    if (!page.visible()) return;
    const { data, ui } = store.getState();
    const threadId = ui.activeThreadId;
    // Marked once it is shown: a thread still being opened is not read yet.
    if (threadId === null || ui.loadingThreadId === threadId) return;
    const readState = data.readStates[threadId];
    if (readState === undefined) return;
    const key = `${threadId}@${readState.revision}`;
    if (asked.has(key)) return;
    asked.add(key);
    void client
      .request('thread/readState/update', {
        threadId,
        expectedRevision: readState.revision,
        operation: { type: 'read' },
      })
      .then(({ readState: now }) => setData(store, (current) => setReadState(newDraft(), current, threadId, now)))
      // Refused: it changed meanwhile (a turn ended, someone marked it), and its news brings the new revision.
      .catch(() => undefined);
  };
  const unsubscribe = store.subscribe(check);
  const stopWatching = page.onChange(check);
  return () => {
    unsubscribe();
    stopWatching();
  };
}
