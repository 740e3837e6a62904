// What only the page shows: toasts, the turn-diff dialog, the connection's retry; and the client's own
// calls for views that keep what they get to themselves.
import { setUi, type NewThreadPlace } from '../store';
import type { ActionContext } from './context';

export function createUiActions(ctx: ActionContext) {
  const { client, store, toast } = ctx;
  return {
    toast,

    dismissToast(id: number): void {
      setUi(store, (ui) => ({ toasts: ui.toasts.filter((t) => t.id !== id) }));
    },

    showTurnDiff(threadId: string, turnId: string): void {
      setUi(store, { turnDiff: { threadId, turnId } });
    },

    closeTurnDiff(): void {
      setUi(store, { turnDiff: null });
    },

    /** Where the next new thread works (kept for the threads after it, until changed). */
    setNewThreadPlace(place: Partial<NewThreadPlace>): void {
      setUi(store, (ui) => ({ newThreadPlace: { ...ui.newThreadPlace, ...place } }));
    },

    retryConnection(): void {
      client.retry();
    },

    /** Every notification as it arrives, unbatched (the terminal panel's output, push progress in the Changes panel). */
    onNotification: client.onNotification.bind(client),

    /** Any protocol request, for views that keep what it returns to themselves (Settings). */
    request: client.request.bind(client),

    /** A PNG on the machine running Weft (a browser screenshot) as a data URL; null when it cannot be read. */
    async readPngFile(path: string): Promise<string | null> {
      try {
        const { dataBase64 } = await client.request('fs/readFile', { path });
        return `data:image/png;base64,${dataBase64}`;
      } catch {
        return null;
      }
    },

    /** The bytes of a file on the machine running Weft, as text (UTF-8); null when it cannot be read. */
    async readTextFile(path: string): Promise<string | null> {
      try {
        const { dataBase64 } = await client.request('fs/readFile', { path });
        const bytes = Uint8Array.from(atob(dataBase64), (c) => c.charCodeAt(0));
        return new TextDecoder().decode(bytes);
      } catch {
        return null;
      }
    },
  };
}
