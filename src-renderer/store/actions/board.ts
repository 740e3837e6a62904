// The board's actions: "Needs me" (the thread list shows only what needs the person, of every open
// project), going to the next thread that needs them, showing a thread of another open project, and
// marking a thread unread.
import type { Thread } from '../../../src-preload/protocol';
import { nextNeedingYou, threadsOfProject } from '../board';
import { newDraft } from '../draft';
import { setData, setUi } from '../store';
import { projectOf, setReadState } from '../thread-list';
import type { ActionContext } from './context';
import type { createProjects } from './projects';

export function createBoardActions(ctx: ActionContext, projects: ReturnType<typeof createProjects>) {
  const { client, store, get, attempt, toast } = ctx;

  /** The open project a thread belongs to: the one listing it, else its own folder's when open. */
  const openProjectOf = (thread: Thread): string | null => {
    const { data, ui } = get();
    return (
      ui.openProjects.find((p) => threadsOfProject(data, p).some((t) => t.id === thread.id)) ??
      (ui.openProjects.includes(projectOf(thread)) ? projectOf(thread) : null)
    );
  };

  /** Shows a thread, switching to its project first when it is another open project's. */
  const showThreadOf = (thread: Thread): void => {
    projects.showProject(openProjectOf(thread) ?? get().data.cwd ?? projectOf(thread), thread.id);
  };

  return {
    showThreadOf,

    setNeedsMeOnly(needsMeOnly: boolean): void {
      setUi(store, { needsMeOnly });
    },

    /**
     * Shows the next thread that needs the person (after the one shown, in the order "Needs me" lists
     * them, going round the open projects); says so when none does.
     */
    showNextNeedingYou(): void {
      const { data, ui } = get();
      const order = [...(data.cwd === null ? [] : [data.cwd]), ...ui.openProjects.filter((p) => p !== data.cwd)];
      const next = nextNeedingYou(data, order, ui.activeThreadId);
      if (next === null) {
        toast(
          ui.activeThreadId !== null && order.length > 0 ? 'No other thread needs you.' : 'No thread needs you.',
          'info',
        );
        return;
      }
      projects.showProject(next.project, next.thread.id);
    },

    /** Marks a thread unread (for later), with the revision of its read state as the server has it now. */
    async markUnread(threadId: string): Promise<void> {
      const read = await attempt('Could not mark the thread unread', () => client.request('thread/read', { threadId }));
      const revision = read?.readState?.revision;
      if (revision === undefined) return;
      const result = await attempt('Could not mark the thread unread', () =>
        client.request('thread/readState/update', {
          threadId,
          expectedRevision: revision,
          operation: { type: 'unread' },
        }),
      );
      if (result !== undefined) setData(store, (data) => setReadState(newDraft(), data, threadId, result.readState));
    },
  };
}
