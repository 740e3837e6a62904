// What the checkpoint views share: the restore being previewed and the restore that Redo can undo.
// Kept apart from the app store: nothing else reads it, and it never outlives the page.
import { create } from 'zustand';
import {
  CHECKPOINT_CONFLICT_CODE,
  CheckpointConflictData,
  type FileNotRestored,
  type StoppedCommand,
} from '../../src-preload/protocol';
import { RpcError } from '../client/types';

export interface RestoreTarget {
  threadId: string;
  /** The first turn to drop: the files go back to how they were before it. */
  beforeTurnId: string;
  /** `undo`: the latest turn and its files; `restore`: back to just after an earlier turn. */
  kind: 'undo' | 'restore';
  /** How many turns the conversation loses. */
  dropped: number;
}

export interface RedoOffer {
  threadId: string;
  /** Files the restore changed (0: nothing to redo, the bar only reports). */
  files: number;
  /** Files left as the user had them ("Keep mine"). */
  kept: number;
  /** Files the last restore (or redo) could not put back, with the reason. */
  notRestored: FileNotRestored[];
  /** Commands the agent had left running, stopped before the files were touched. */
  stopped: StoppedCommand[];
  /** The thread's turn count right after the restore: a new turn ends the offer (its changes come first). */
  turns: number;
  /** Files Redo put back, once it has run; null until then. */
  redone: number | null;
  /** Turns Redo brought back with the files (those the undo dropped); 0 until then. */
  turnsBack?: number;
}

interface CheckpointUiState {
  restore: RestoreTarget | null;
  redo: RedoOffer | null;
  /** The fork (thread id) whose files are being compared with its parent's, or whose folder is being removed. */
  compare: string | null;
  removeFork: string | null;
  /** The fork whose changes are being brought back to its parent's project. */
  bringBack: string | null;
}

export const useCheckpointUi = create<CheckpointUiState>(() => ({
  restore: null,
  redo: null,
  compare: null,
  removeFork: null,
  bringBack: null,
}));

export function openCompare(threadId: string | null): void {
  useCheckpointUi.setState({ compare: threadId });
}

export function openRemoveFork(threadId: string | null): void {
  useCheckpointUi.setState({ removeFork: threadId });
}

export function openBringBack(threadId: string | null): void {
  useCheckpointUi.setState({ bringBack: threadId });
}

export function openRestore(target: RestoreTarget): void {
  useCheckpointUi.setState({ restore: target });
}

export function closeRestore(): void {
  useCheckpointUi.setState({ restore: null });
}

export function offerRedo(offer: RedoOffer | null): void {
  useCheckpointUi.setState({ redo: offer });
}

/** The files named by a conflict error (-32010), or null for any other error. */
export function conflictsOf(error: unknown): string[] | null {
  if (!(error instanceof RpcError) || error.code !== CHECKPOINT_CONFLICT_CODE) return null;
  const data = CheckpointConflictData.safeParse(error.data);
  return data.success ? data.data.conflicts : [];
}

/** The commands a refused restore stopped before it compared the files (they stay stopped). */
export function stoppedOf(error: unknown): StoppedCommand[] {
  if (!(error instanceof RpcError) || error.code !== CHECKPOINT_CONFLICT_CODE) return [];
  const data = CheckpointConflictData.safeParse(error.data);
  return data.success ? (data.data.stoppedCommands ?? []) : [];
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
