// The current branch, and a menu to switch or create one (with a warning when changes are uncommitted).
import { folderParams } from '../../store/project-key';
import { useState } from 'react';
import type { WeftGitBranchesResult } from '../../../src-preload/protocol';
import { Icon } from '../../components/Icon';
import { useController } from '../../store/app-context';
import { errorText, type GitView } from './git-client';

export function BranchMenu({ cwd, git }: { cwd: string; git: GitView }) {
  const controller = useController();
  const [open, setOpen] = useState(false);
  const [list, setList] = useState<WeftGitBranchesResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<{ branch: string; create: boolean } | null>(null);
  const [name, setName] = useState('');
  const branch = git.status?.branch ?? null;

  const toggle = async (): Promise<void> => {
    if (open) {
      setOpen(false);
      return;
    }
    setOpen(true);
    setError(null);
    try {
      setList(await controller.request('weft/git/branches', folderParams(cwd)));
    } catch (e) {
      setError(errorText(e));
    }
  };

  const switchTo = async (target: string, create: boolean, allowDirty: boolean): Promise<void> => {
    if (!allowDirty && list?.dirty === true) {
      setPending({ branch: target, create });
      return;
    }
    const ok = await git.run(`Switch to ${target}`, () =>
      controller.request('weft/git/checkout', { ...folderParams(cwd), branch: target, create, allowDirty }),
    );
    if (ok) {
      setOpen(false);
      setPending(null);
      setName('');
    }
  };

  return (
    <div className="branch-menu">
      <button
        type="button"
        className="btn btn-small"
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={`Branch ${branch ?? '(detached)'}`}
        onClick={() => void toggle()}
      >
        <Icon name="fork" size={12} /> {branch ?? 'detached HEAD'}
        <Icon name="chevronDown" size={12} />
      </button>
      {open && (
        <div className="branch-popover" role="group" aria-label="Branches">
          {error !== null && <p className="changes-error">{error}</p>}
          {pending !== null && (
            <div className="changes-confirm" role="alertdialog" aria-label="Uncommitted changes">
              <span>
                There are uncommitted changes. Git carries them to {pending.branch} (or refuses if they conflict).
              </span>
              <button
                type="button"
                className="btn btn-small btn-danger-ghost"
                onClick={() => void switchTo(pending.branch, pending.create, true)}
              >
                Switch anyway
              </button>
              <button type="button" className="btn btn-small" onClick={() => setPending(null)}>
                Cancel
              </button>
            </div>
          )}
          <ul className="branch-list">
            {list?.branches.map((b) => (
              <li key={b.name}>
                <button
                  type="button"
                  className="branch-item"
                  disabled={b.current}
                  aria-label={b.current ? `${b.name} (current)` : `Switch to ${b.name}`}
                  onClick={() => void switchTo(b.name, false, false)}
                >
                  {b.current ? <Icon name="check" size={12} /> : <span className="branch-dot" />}
                  <span className="branch-name">{b.name}</span>
                  <span className="muted branch-subject">{b.subject}</span>
                </button>
              </li>
            ))}
          </ul>
          <form
            className="branch-create"
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim() !== '') void switchTo(name.trim(), true, false);
            }}
          >
            <input
              aria-label="New branch name"
              placeholder="new-branch"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <button type="submit" className="btn btn-small" disabled={name.trim() === ''}>
              Create
            </button>
          </form>
        </div>
      )}
    </div>
  );
}
