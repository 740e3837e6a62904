// The Changes panel's own UI state: whether it is open, which view, the line a finding points at, and
// the inline comments waiting to be sent. Shared by the header button, the panel and review findings.
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

export type ChangesTab = 'changes' | 'lastTurn' | 'review';

export interface DiffComment {
  id: number;
  path: string;
  /** 1-based line of the file's new version (or of the old one, when `side` is original). */
  line: number;
  side: 'original' | 'modified';
  text: string;
}

/** A file and line to show (a review finding); `nonce` lets the same line be shown again. */
export interface ChangesFocus {
  path: string;
  lineStart: number;
  lineEnd: number;
  nonce: number;
}

export interface ChangesState {
  open: boolean;
  tab: ChangesTab;
  focus: ChangesFocus | null;
  comments: DiffComment[];
  /** The review item whose findings the Review view lists. */
  review: { threadId: string; itemId: string } | null;
}

export const changesStore = createStore<ChangesState>(() => ({
  open: false,
  tab: 'changes',
  focus: null,
  comments: [],
  review: null,
}));

let nextId = 1;

export const changesActions = {
  open(tab: ChangesTab = 'changes'): void {
    changesStore.setState({ open: true, tab });
  },
  close(): void {
    changesStore.setState({ open: false, focus: null });
  },
  setTab(tab: ChangesTab): void {
    changesStore.setState({ tab });
  },
  showReview(threadId: string, itemId: string): void {
    changesStore.setState({ open: true, tab: 'review', review: { threadId, itemId } });
  },
  focus(path: string, lineStart: number, lineEnd: number, review: { threadId: string; itemId: string } | null): void {
    changesStore.setState((s) => ({
      open: true,
      tab: 'review',
      review: review ?? s.review,
      focus: { path, lineStart, lineEnd, nonce: (s.focus?.nonce ?? 0) + 1 },
    }));
  },
  addComment(comment: Omit<DiffComment, 'id'>): void {
    changesStore.setState((s) => ({ comments: [...s.comments, { ...comment, id: nextId++ }] }));
  },
  removeComment(id: number): void {
    changesStore.setState((s) => ({ comments: s.comments.filter((c) => c.id !== id) }));
  },
  clearComments(): void {
    changesStore.setState({ comments: [] });
  },
};

export function useChanges<T>(selector: (s: ChangesState) => T): T {
  return useStore(changesStore, selector);
}

/** The message "Send to agent" sends: every comment with its file and line. */
export function commentsMessage(comments: readonly DiffComment[]): string {
  const lines = ['Please address these review comments on the current changes:', ''];
  for (const c of comments)
    lines.push(`- ${c.path}:${c.line}${c.side === 'original' ? ' (old version)' : ''}: ${c.text}`);
  return lines.join('\n');
}

/** The message "Fix this" sends for one finding. */
export function fixMessage(f: {
  title: string;
  body: string;
  path: string;
  lineStart: number;
  lineEnd: number;
}): string {
  const where = f.lineEnd !== f.lineStart ? `${f.path}:${f.lineStart}-${f.lineEnd}` : `${f.path}:${f.lineStart}`;
  return `Fix this review finding in ${where}:\n\n${f.title}\n\n${f.body}`;
}
