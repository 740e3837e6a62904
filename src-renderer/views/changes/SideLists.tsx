// Under the files: what was discarded (with Restore) and the inline comments waiting to be sent.
import { folderParams } from '../../store/project-key';
import { useEffect, useState } from 'react';
import type { GitDiscardRecord } from '../../../src-preload/protocol';
import { Icon } from '../../components/Icon';
import { useController } from '../../store/app-context';
import { changesActions, commentsMessage, useChanges } from '../../store/changes-store';
import type { GitView } from './git-client';

export function Discards({ cwd, git }: { cwd: string; git: GitView }) {
  const controller = useController();
  const [items, setItems] = useState<GitDiscardRecord[]>([]);
  useEffect(() => {
    let live = true;
    controller.request('weft/git/discard/list', folderParams(cwd)).then(
      (r) => live && setItems(r.discards.filter((d) => !d.restored).slice(0, 10)),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [controller, cwd, git.version]);
  if (items.length === 0) return null;
  return (
    <section className="changes-group" aria-label="Discarded">
      <h3>Discarded</h3>
      <ul className="changes-files">
        {items.map((d) => (
          <li key={d.id} className="changes-file-row">
            <span className="file-path">{d.path}</span>
            <span className="muted small">
              {d.kind === 'hunks' ? 'hunk' : d.kind} · {d.summary} · {new Date(d.createdAt).toLocaleTimeString()}
            </span>
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Restore ${d.path}`}
              onClick={() =>
                void git.run(`Restore ${d.path}`, () =>
                  controller.request('weft/git/discard/restore', { ...folderParams(cwd), id: d.id }),
                )
              }
            >
              <Icon name="refresh" size={12} /> Restore
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Comments() {
  const controller = useController();
  const comments = useChanges((s) => s.comments);
  if (comments.length === 0) return null;
  return (
    <section className="changes-group" aria-label="Comments">
      <h3>Comments ({comments.length})</h3>
      <ul className="changes-comments">
        {comments.map((c) => (
          <li key={c.id}>
            <code>
              {c.path}:{c.line}
            </code>{' '}
            {c.text}
            <button
              type="button"
              className="icon-button"
              aria-label={`Remove comment on ${c.path} line ${c.line}`}
              onClick={() => changesActions.removeComment(c.id)}
            >
              <Icon name="x" size={12} />
            </button>
          </li>
        ))}
      </ul>
      <button
        type="button"
        className="btn btn-small btn-primary"
        onClick={() =>
          void controller.send([{ type: 'text', text: commentsMessage(comments) }]).then((sent) => {
            if (sent) changesActions.clearComments();
          })
        }
      >
        <Icon name="arrowUp" size={12} /> Send to agent
      </button>
    </section>
  );
}
