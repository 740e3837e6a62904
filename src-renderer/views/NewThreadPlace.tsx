// Where a new thread works, chosen before its first message: Local (the project's folder) or Worktree
// (a git worktree of its own on a new branch, with the project's uncommitted changes if asked).
import { useId } from 'react';
import { useController, useWeft } from '../store/app-context';

export function NewThreadPlace() {
  const controller = useController();
  const place = useWeft((s) => s.ui.newThreadPlace);
  const labelId = useId();
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
        <label className="thread-place-carry">
          <input
            type="checkbox"
            checked={place.carryChanges}
            onChange={(e) => controller.setNewThreadPlace({ carryChanges: e.target.checked })}
          />
          Carry my uncommitted changes
        </label>
      )}
    </div>
  );
}
