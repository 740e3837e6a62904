// The answer to a patch approval with Weft's per-hunk review. Pure.
import type {
  FileChangeApprovalDecision,
  FileChangeRequestApprovalResult,
  FileUpdateChange,
  WeftHunkDecision,
} from '../../../src-preload/protocol';
import { parseFileDiff } from '../../../src-preload/diff/unified-diff';
import type { HunkVerdict } from '../../store/saved-drafts';

/** The person's verdict on one hunk; hunks without one are accepted. */
export type { HunkVerdict };

export function hunkKey(path: string, hunk: number): string {
  return `${path}\u0000${hunk}`;
}

/**
 * `{decision}` alone when no hunk was declined or commented on; otherwise `weftHunks` lists every hunk of
 * every file (0-based in the order of its file's `@@` headers) with its verdict, and the comment of each
 * declined hunk.
 */
export function buildPatchAnswer(
  changes: readonly FileUpdateChange[],
  verdicts: ReadonlyMap<string, HunkVerdict>,
  decision: FileChangeApprovalDecision,
): FileChangeRequestApprovalResult {
  const reviewed = [...verdicts.values()].some((v) => v.declined || v.comment.trim() !== '');
  if (!reviewed) return { decision };
  const weftHunks: WeftHunkDecision[] = [];
  for (const change of changes) {
    parseFileDiff(change.diff).hunks.forEach((_hunk, index) => {
      const verdict = verdicts.get(hunkKey(change.path, index));
      const declined = decision === 'decline' || verdict?.declined === true;
      const comment = verdict?.comment.trim() ?? '';
      weftHunks.push({
        path: change.path,
        hunk: index,
        decision: declined ? 'decline' : 'accept',
        ...(declined && comment !== '' ? { comment } : {}),
      });
    });
  }
  return { decision, weftHunks };
}

/**
 * How many hunks an Accept would apply, of how many. The hunks a cut diff leaves out (`weftDiffCut`) cannot
 * be reviewed one by one: they follow the overall decision, so an Accept applies them.
 */
export function acceptedCount(
  changes: readonly FileUpdateChange[],
  verdicts: ReadonlyMap<string, HunkVerdict>,
): { accepted: number; total: number } {
  let total = 0;
  let accepted = 0;
  for (const change of changes) {
    const count = parseFileDiff(change.diff).hunks.length;
    const hidden = Math.max(0, (change.weftDiffCut?.hunks ?? count) - count);
    total += count + hidden;
    accepted += hidden;
    for (let i = 0; i < count; i++) if (verdicts.get(hunkKey(change.path, i))?.declined !== true) accepted += 1;
  }
  return { accepted, total };
}
