// Where a new thread works, chosen before its first message: Local (the project's folder) or Worktree
// (a git worktree of its own on a new branch, with the project's uncommitted changes if asked), and with
// Worktree how many ways to try: the first message starts that many worktree threads, compared side by side.
import { useId } from 'react';
import { useController, useWeft } from '../store/app-context';
import { MAX_WAYS } from '../store/store';

const WAYS = Array.from({ length: MAX_WAYS }, (_, i) => i + 1);

export function NewThreadPlace() {
  const controller = useController();
  const place = useWeft((s) => s.ui.newThreadPlace);
  const labelId = useId();
  const waysId = useId();
  const choose = (worktree: boolean): void => controller.setNewThreadPlace({ worktree });
  return (
    <div className="thread-place">
      <span id={labelId} className="thread-place-label">
        Work in
      </span>
      <div className="thread-place-choice" role="radiogroup" aria-labelledby={labelId}>
        <label title="In the project's folder">
          <input type="radio" name="weft-thread-place" checked={!place.worktree} onChange={() => choose(false)} />
          Local
        </label>
        <label title="In a git worktree of its own, on a new branch">
          <input type="radio" name="weft-thread-place" checked={place.worktree} onChange={() => choose(true)} />
          Worktree
        </label>
      </div>
      {place.worktree && (
        <>
          <span className="thread-place-ways-group">
            <span id={waysId} className="thread-place-label">
              Try
            </span>
            <div
              className="segmented thread-place-ways"
              role="radiogroup"
              aria-labelledby={waysId}
              title="Start this many worktree threads with the same message, then compare them side by side"
            >
              {WAYS.map((n) => (
                <button
                  key={n}
                  type="button"
                  role="radio"
                  aria-checked={place.ways === n}
                  aria-label={n === 1 ? 'Try 1 way' : `Try ${n} ways`}
                  onClick={() => controller.setNewThreadPlace({ ways: n })}
                >
                  {n}
                </button>
              ))}
            </div>
            <span className="thread-place-label">{place.ways === 1 ? 'way' : 'ways'}</span>
          </span>
          <label className="thread-place-carry">
            <input
              type="checkbox"
              checked={place.carryChanges}
              onChange={(e) => controller.setNewThreadPlace({ carryChanges: e.target.checked })}
            />
            Carry my uncommitted changes
          </label>
        </>
      )}
    </div>
  );
}
