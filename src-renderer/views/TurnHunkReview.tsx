// The review of a landed turn's changes in "View changes": under each hunk, Keep / Undo hunk and a
// reason (it goes to the model with the next message); Undo hunk puts that hunk's lines back on disk
// through the checkpoints (`weft/checkpoints/revertHunk`), refused when the lines changed since.
import { useState } from 'react';
import { headerNumbers, hunkStats } from '../../src-preload/diff/unified-diff';
import type { Hunk } from '../components/diff/hunks';
import { Icon } from '../components/Icon';
import { useController } from '../store/app-context';
import { conflictsOf, messageOf } from '../store/checkpoint-ui';
import { hunkKey, turnReview, useTurnReview } from '../store/turn-review';

interface TurnHunkProps {
  threadId: string;
  turnId: string;
  path: string;
  index: number;
  hunk: Hunk;
}

/** Keep / Undo hunk, the reason, and the verdict once given; shown under the hunk inside the diff. */
export function TurnHunkControls({ threadId, turnId, path, index, hunk }: TurnHunkProps) {
  const controller = useController();
  const review = useTurnReview(threadId, turnId);
  const verdict = review.hunks[hunkKey(path, hunk.header)];
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = `hunk ${index + 1} of ${path}`;
  const stats = hunkStats([hunk]);
  const note = (v: 'kept' | 'undone') => ({
    path,
    hunk: index + 1,
    header: hunk.header,
    verdict: v,
    reason: reason.trim(),
  });

  const undo = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await controller.request('weft/checkpoints/revertHunk', {
        threadId,
        turnId,
        path,
        hunk: headerNumbers(hunk),
      });
      turnReview.judge(threadId, turnId, note('undone'));
    } catch (e) {
      setError(
        conflictsOf(e) !== null
          ? 'Not undone: these lines changed since the agent wrote them. Nothing was written; your version stays.'
          : messageOf(e),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div
      className={`hunk-zone turn-hunk-zone ${verdict === 'undone' ? 'is-declined' : ''}`}
      role="group"
      aria-label={`Review of ${name}`}
    >
      <div className="hunk-row">
        <span className="hunk-name">Hunk {index + 1}</span>
        <span className="hunk-stats">
          <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
        </span>
        {verdict !== undefined && (
          <span className="turn-hunk-verdict" role="status">
            <Icon name={verdict === 'undone' ? 'x' : 'check'} size={12} />
            {verdict === 'undone' ? 'Undone: the lines are back as before the turn' : 'Kept'}
          </span>
        )}
        <span className="spacer" />
        {verdict !== 'undone' && (
          <div className="verdict" role="group" aria-label={`Verdict on ${name}`}>
            <button
              type="button"
              className={`btn btn-small ${verdict === 'kept' ? 'btn-accepted' : ''}`}
              aria-pressed={verdict === 'kept'}
              aria-label={`Keep ${name}`}
              disabled={busy}
              onClick={() => turnReview.judge(threadId, turnId, note('kept'))}
            >
              <Icon name="check" size={12} />
              Keep
            </button>
            <button
              type="button"
              className="btn btn-small btn-danger-ghost"
              aria-label={`Undo ${name}`}
              disabled={busy}
              onClick={() => void undo()}
            >
              <Icon name="undo" size={12} />
              {busy ? 'Undoing…' : 'Undo hunk'}
            </button>
          </div>
        )}
      </div>
      {verdict === undefined && (
        <input
          type="text"
          className="text-input hunk-comment"
          aria-label={`Reason for ${name}`}
          placeholder="Why? Optional: sent to the agent with your next message."
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      )}
      {error !== null && (
        <p className="changes-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** "Viewed" for one file of the turn: a viewed file's diff folds away. */
export function ViewedToggle({ threadId, turnId, path }: { threadId: string; turnId: string; path: string }) {
  const viewed = useTurnReview(threadId, turnId).viewed.includes(path);
  return (
    <label className="viewed-toggle">
      <input
        type="checkbox"
        checked={viewed}
        onChange={(e) => turnReview.setViewed(threadId, turnId, path, e.target.checked)}
      />
      Viewed
    </label>
  );
}
