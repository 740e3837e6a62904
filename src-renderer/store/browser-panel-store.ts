// The browser panel of a thread (`weft serve` and the app alike): open or closed, shared by its header
// button, the "Show in panel" button of each browser action and the panel itself; and what it shows, the
// thread's latest screenshot and the page's latest address, read from the thread's browserAction items.
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import type { BrowserScreenshot } from '../../src-preload/protocol';
import type { Conversation, TurnView } from './state';

const store = createStore<{ open: boolean }>(() => ({ open: false }));

export const browserPanelActions = {
  setOpen(open: boolean): void {
    store.setState({ open });
  },
};

export function useBrowserPanelOpen(): boolean {
  return useStore(store, (s) => s.open);
}

export interface BrowserView {
  /** The page's address after the thread's latest browser action that had one. */
  url: string | null;
  /** The latest screenshot, with the page's address when it was taken. */
  shot: (BrowserScreenshot & { url: string | null }) | null;
}

interface TurnBrowsing {
  seen: boolean;
  url: string | null;
  shot: BrowserView['shot'];
}

/** Per turn (turns are copied when they change, so an unchanged turn is not read again). */
const byTurn = new WeakMap<TurnView, TurnBrowsing>();

function browsingOf(turn: TurnView): TurnBrowsing {
  const known = byTurn.get(turn);
  if (known !== undefined) return known;
  const found: TurnBrowsing = { seen: false, url: null, shot: null };
  for (const itemId of turn.itemIds) {
    const item = turn.items[itemId]?.item;
    if (item?.type !== 'browserAction') continue;
    found.seen = true;
    if (item.url !== null) found.url = item.url;
    if (item.screenshot !== null) found.shot = { ...item.screenshot, url: item.url };
  }
  byTurn.set(turn, found);
  return found;
}

/**
 * What the panel shows for `c`, as a string (equal strings for equal views, so a store selector may return
 * it); empty when the thread has no browser action.
 */
export function browserViewKey(c: Conversation | undefined): string {
  if (c === undefined) return '';
  let seen = false;
  const view: BrowserView = { url: null, shot: null };
  for (const turnId of c.turnIds) {
    const turn = c.turns[turnId];
    if (turn === undefined) continue;
    const b = browsingOf(turn);
    if (!b.seen) continue;
    seen = true;
    if (b.url !== null) view.url = b.url;
    if (b.shot !== null) view.shot = b.shot;
  }
  return seen ? JSON.stringify(view) : '';
}
