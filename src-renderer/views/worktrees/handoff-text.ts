// The words of the Handoff dialog, by direction: which side is the source and which the destination, what
// each file's status means for people, and the preview's one-line summary.
import type {
  WeftHandoffDirection,
  WeftHandoffFile,
  WeftWorktreeHandoffPreviewResult,
} from '../../../src-preload/protocol';

export interface SideNames {
  sourceSide: 'local' | 'worktree';
  destinationSide: 'local' | 'worktree';
  /** The destination, in a sentence ("your local checkout"). */
  destination: string;
  /** The choices for a conflict: keep the destination's version, take the source's. */
  keep: string;
  take: string;
  /** Whose versions kept conflicts are ("of mine"). */
  keptWhose: string;
  /** The "move" checkbox's label. */
  move: string;
}

export function sideNames(direction: WeftHandoffDirection): SideNames {
  return direction === 'toLocal'
    ? {
        sourceSide: 'worktree',
        destinationSide: 'local',
        destination: 'your local checkout',
        keep: 'Keep mine',
        take: "Take the thread's",
        keptWhose: 'of mine',
        move: 'Move: take these changes out of the worktree (its commits stay) and continue the thread here',
      }
    : {
        sourceSide: 'local',
        destinationSide: 'worktree',
        destination: 'the worktree',
        keep: "Keep the thread's",
        take: 'Take mine',
        keptWhose: "of the thread's",
        move: 'Move: take these changes out of my local checkout and continue the thread in the worktree',
      };
}

const CHANGES: Record<WeftHandoffFile['change'], string> = { add: 'is added', update: 'changes', delete: 'is deleted' };

export function statusLabel(file: WeftHandoffFile): string {
  switch (file.status) {
    case 'apply':
      return CHANGES[file.change];
    case 'merge':
      return 'both changes merged';
    case 'conflict':
      return 'changed on both sides';
    case 'same':
      return 'already the same';
    case 'skipped':
      return 'cannot be handed off';
  }
}

export function handoffSummary(preview: WeftWorktreeHandoffPreviewResult): string {
  const base = preview.base.slice(0, 8);
  return preview.direction === 'toLocal'
    ? `The thread's work on ${preview.branch} since ${base} (committed or not, new files too) comes to your local checkout ${preview.local}. Left: the file there now; right: after the handoff.`
    : `Your uncommitted changes in ${preview.local} (since its HEAD ${base}, new files too) go to the thread's worktree ${preview.worktree}. Left: the file there now; right: after the handoff.`;
}
