// A patch the agent made (or proposes): one row per file with its +/− counts, and a Monaco diff of the
// hunks when the row is open.
import { useMemo } from 'react';
import type { FileChangeItem, FileUpdateChange } from '../../../src-preload/protocol';
import { assertNever } from '../../store/assert-never';
import { DiffView } from '../diff/DiffView';
import { hunkStats, parseFileDiff, sidesFromHunks } from '../diff/unified-diff';
import { relativePath } from '../format';
import { Icon, Spinner } from '../Icon';
import { useDiffLayout, useDisclosure } from '../preferences';

export function changeKindLabel(change: FileUpdateChange): { letter: string; word: string } {
  switch (change.kind.type) {
    case 'add':
      return { letter: 'A', word: 'Added' };
    case 'delete':
      return { letter: 'D', word: 'Deleted' };
    case 'update':
      return change.kind.move_path === null ? { letter: 'M', word: 'Modified' } : { letter: 'R', word: 'Renamed' };
  }
}

function patchStatus(item: FileChangeItem) {
  switch (item.status) {
    case 'inProgress':
      return (
        <span className="status status-running">
          <Spinner size={12} /> Pending
        </span>
      );
    case 'completed':
      return <span className="status status-ok">Applied</span>;
    case 'failed':
      return <span className="status status-failed">Failed</span>;
    case 'declined':
      return <span className="status status-muted">Declined</span>;
  }
  return assertNever(item.status);
}

export function DiffLayoutToggle() {
  const [layout, setLayout] = useDiffLayout();
  return (
    <div className="segmented" role="group" aria-label="Diff layout">
      <button type="button" aria-pressed={layout === 'split'} onClick={() => setLayout('split')} title="Side by side">
        <Icon name="columns" size={14} />
        <span className="sr-only">Side by side</span>
      </button>
      <button type="button" aria-pressed={layout === 'inline'} onClick={() => setLayout('inline')} title="Inline">
        <Icon name="rows" size={14} />
        <span className="sr-only">Inline</span>
      </button>
    </div>
  );
}

function FileRow({ change, cwd, rowKey, initiallyOpen }: { change: FileUpdateChange; cwd: string | null; rowKey: string; initiallyOpen: boolean }) {
  const [open, setOpen] = useDisclosure(`${rowKey}:${change.path}`, initiallyOpen);
  const [layout] = useDiffLayout();
  const parsed = useMemo(() => parseFileDiff(change.diff), [change.diff]);
  const stats = hunkStats(parsed.hunks);
  const sides = useMemo(() => sidesFromHunks(parsed.hunks), [parsed]);
  const kind = changeKindLabel(change);
  const shown = relativePath(change.path, cwd);
  const target = change.kind.type === 'update' && change.kind.move_path !== null ? ` → ${relativePath(change.kind.move_path, cwd)}` : '';
  return (
    <li className="file-row">
      <button type="button" className="file-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <span className={`kind kind-${kind.letter}`} title={kind.word}>
          {kind.letter}
        </span>
        <span className="file-path" title={change.path}>
          {shown}
          {target}
        </span>
        <span className="file-stats">
          <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
        </span>
      </button>
      {open &&
        (parsed.binary ? (
          <div className="tool-empty">Binary file</div>
        ) : (
          <DiffView
            original={sides.original}
            modified={sides.modified}
            path={change.kind.type === 'update' && change.kind.move_path !== null ? change.kind.move_path : change.path}
            sideBySide={layout === 'split'}
            hideUnchanged
            maxHeight={420}
            label={`Changes to ${shown}`}
          />
        ))}
    </li>
  );
}

export function FileChangeCell({ item, cwd, rowKey, latest }: { item: FileChangeItem; cwd: string | null; rowKey: string; latest: boolean }) {
  const files = item.changes.length;
  return (
    <div className={`cell cell-tool cell-patch is-${item.status}`}>
      <div className="tool-head tool-head-static">
        <Icon name="diff" size={14} />
        <span className="tool-title">
          {item.status === 'completed' ? 'Edited' : item.status === 'inProgress' ? 'Proposed changes to' : 'Changes to'} {files} {files === 1 ? 'file' : 'files'}
        </span>
        <span className="tool-meta">
          <DiffLayoutToggle />
          {patchStatus(item)}
        </span>
      </div>
      <ul className="file-list">
        {item.changes.map((change) => (
          <FileRow key={change.path} change={change} cwd={cwd} rowKey={rowKey} initiallyOpen={latest && files <= 3} />
        ))}
      </ul>
    </div>
  );
}
