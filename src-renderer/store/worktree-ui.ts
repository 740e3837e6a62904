// The worktree dialogs' own small store: the Handoff open for a thread (and which way), and the comparison
// of a "try N ways" group. Views open and close them; nothing else reads them.
import { create } from 'zustand';
import type { WeftHandoffDirection } from '../../src-preload/protocol';

export interface HandoffTarget {
  threadId: string;
  direction: WeftHandoffDirection;
}

interface WorktreeUiState {
  handoff: HandoffTarget | null;
  /** The group (`Thread.weftGroupId`) whose threads are compared side by side. */
  ways: string | null;
}

export const useWorktreeUi = create<WorktreeUiState>(() => ({ handoff: null, ways: null }));

export function openHandoff(target: HandoffTarget | null): void {
  useWorktreeUi.setState({ handoff: target });
}

export function openWays(groupId: string | null): void {
  useWorktreeUi.setState({ ways: groupId });
}
