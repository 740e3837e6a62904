// A patch the agent made (or proposes): one row per file with its +/− counts, and a diff of the hunks when
// the row is open (drawn as plain elements: StaticDiff.tsx).
import { useMemo, type ReactNode } from 'react';
import type { FileChangeItem, FileUpdateChange } from '../../../src-preload/protocol';
import { assertNever } from '../../../src-preload/protocol';
import { BigDiffGate } from '../diff/BigDiff';
import { diffSize } from '../diff/diff-size';
import { DiffView } from '../diff/DiffView';
import { StaticDiff } from '../diff/StaticDiff';
import type { DiffZone } from '../diff/MonacoDiff';
import { hunkStats, parseFileDiff } from '../../../src-preload/diff/unified-diff';
import { changedLines, compactChangeEnds, compactSides, keptHunks } from '../diff/hunks';
import type { Hunk } from '../diff/hunks';
import { duration, relativePath } from '../format';
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
    case 'completed': {
      const declined = item.weftDeclined?.length ?? 0;
      return (
        <span className="status status-ok">
          {declined === 0 ? 'Applied' : `Applied · ${declined} ${declined === 1 ? 'hunk' : 'hunks'} declined`}
        </span>
      );
    }
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

/** The hunk indexes of `change` declined in review (see `weftDeclined`). */
function declinedOf(item: FileChangeItem, change: FileUpdateChange): Set<number> {
  const names = [change.path, change.kind.type === 'update' ? change.kind.move_path : null];
  return new Set((item.weftDeclined ?? []).filter((d) => names.includes(d.path)).map((d) => d.hunk));
}

const NOT_LANDED: Record<FileUpdateChange['kind']['type'], string> = {
  add: 'Not added (declined)',
  delete: 'Not deleted (declined)',
  update: 'Not changed (declined)',
};

/** A diff of hunks shown end to end, with a fold marker for the unchanged lines between them. */
export function CompactDiff({
  hunks,
  path,
  label,
  maxHeight,
  hunkZones,
}: {
  hunks: readonly Hunk[];
  path: string;
  label: string;
  maxHeight: number;
  /** Content under each hunk's last change (index = the hunk's), e.g. its review controls. */
  hunkZones?: readonly ReactNode[];
}) {
  const [layout] = useDiffLayout();
  const sides = useMemo(() => compactSides(hunks), [hunks]);
  const numbers = useMemo(() => ({ original: sides.originalNumbers, modified: sides.modifiedNumbers }), [sides]);
  const zones = useMemo<DiffZone[]>(
    () =>
      sides.gaps.map((gap) => ({
        key: `gap-${gap.afterModifiedLine}`,
        afterLine: gap.afterModifiedLine,
        content: (
          <div
            className="diff-fold"
            role="separator"
            aria-label={`${gap.hidden} unchanged ${gap.hidden === 1 ? 'line' : 'lines'}`}
          >
            <span aria-hidden="true">⋯</span> {gap.hidden} unchanged {gap.hidden === 1 ? 'line' : 'lines'}
          </div>
        ),
      })),
    [sides],
  );
  const ends = useMemo(() => compactChangeEnds(hunks), [hunks]);
  const allZones = useMemo<DiffZone[]>(
    () => [
      ...zones,
      ...(hunkZones ?? []).map((content, index) => ({
        key: `hunk-${index}`,
        afterLine: ends[index] ?? 0,
        content,
      })),
    ],
    [zones, hunkZones, ends],
  );
  return (
    <DiffView
      original={sides.original}
      modified={sides.modified}
      path={path}
      sideBySide={layout === 'split'}
      hideUnchanged={false}
      maxHeight={maxHeight}
      label={label}
      zones={allZones}
      lineNumbers={numbers}
    />
  );
}

/** Declined hunks, shown for context only: struck through, marked `data-declined`. */
function DeclinedHunks({ hunks, declined }: { hunks: readonly Hunk[]; declined: ReadonlySet<number> }) {
  if (declined.size === 0) return null;
  return (
    <div className="declined-hunks">
      {hunks.map((hunk, index) =>
        declined.has(index) ? (
          <div key={index} className="declined-hunk">
            <div className="declined-hunk-head">
              <Icon name="x" size={12} /> Hunk {index + 1} declined, not applied
            </div>
            <pre className="declined-hunk-lines" data-declined="true">
              {changedLines(hunk)}
            </pre>
          </div>
        ) : null,
      )}
    </div>
  );
}

function FileRow({
  item,
  change,
  cwd,
  rowKey,
  initiallyOpen,
}: {
  item: FileChangeItem;
  change: FileUpdateChange;
  cwd: string | null;
  rowKey: string;
  initiallyOpen: boolean;
}) {
  const [open, setOpen] = useDisclosure(`${rowKey}:${change.path}`, initiallyOpen);
  const parsed = useMemo(() => parseFileDiff(change.diff), [change.diff]);
  const declined = useMemo(() => declinedOf(item, change), [item, change]);
  const landed = useMemo(() => keptHunks(parsed.hunks, declined), [parsed, declined]);
  const none = parsed.hunks.length > 0 && landed.length === 0;
  // A cut diff holds only its first hunks: its totals come from the server (declined hunks included).
  const size = useMemo(() => diffSize(landed, change.weftDiffCut), [landed, change.weftDiffCut]);
  const stats = size.cut ? size : hunkStats(landed);
  const kind = changeKindLabel(change);
  const shown = relativePath(change.path, cwd);
  const target =
    change.kind.type === 'update' && change.kind.move_path !== null
      ? ` → ${relativePath(change.kind.move_path, cwd)}`
      : '';
  return (
    <li className={`file-row ${none ? 'is-declined' : ''}`} data-declined={none ? 'true' : undefined}>
      <button type="button" className="file-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <span className={`kind kind-${kind.letter}`} title={kind.word}>
          {kind.letter}
        </span>
        <span className="file-path" title={change.path}>
          {shown}
          {target}
        </span>
        {none ? (
          <span className="status status-muted">{NOT_LANDED[change.kind.type]}</span>
        ) : (
          <span className="file-stats">
            <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
          </span>
        )}
      </button>
      {open &&
        (parsed.binary ? (
          <div className="tool-empty">Binary file</div>
        ) : parsed.problem !== undefined ? (
          <div className="tool-empty">Not shown: {parsed.problem}</div>
        ) : (
          <>
            {landed.length > 0 && (
              <BigDiffGate size={size} text={change.diff} label={`Changes to ${shown}`}>
                {() => (
                  <StaticDiff
                    hunks={landed}
                    path={
                      change.kind.type === 'update' && change.kind.move_path !== null
                        ? change.kind.move_path
                        : change.path
                    }
                    maxHeight={420}
                    label={`Changes to ${shown}`}
                  />
                )}
              </BigDiffGate>
            )}
            <DeclinedHunks hunks={parsed.hunks} declined={declined} />
          </>
        ))}
    </li>
  );
}

export function FileChangeCell({
  item,
  cwd,
  rowKey,
  latest,
}: {
  item: FileChangeItem;
  cwd: string | null;
  rowKey: string;
  latest: boolean;
}) {
  const files = item.changes.length;
  // What landed: a completed patch counts only the files that kept at least one hunk.
  const landedFiles =
    item.status === 'completed'
      ? item.changes.filter(
          (change) => declinedOf(item, change).size < Math.max(1, parseFileDiff(change.diff).hunks.length),
        ).length
      : files;
  return (
    <div className={`cell cell-tool cell-patch is-${item.status}`}>
      <div className="tool-head tool-head-static">
        <Icon name="diff" size={14} />
        <span className="tool-title">
          {item.status === 'completed' ? 'Edited' : item.status === 'inProgress' ? 'Proposed changes to' : 'Changes to'}{' '}
          {landedFiles} {landedFiles === 1 ? 'file' : 'files'}
        </span>
        <span className="tool-meta">
          <DiffLayoutToggle />
          {item.weftDurationMs !== undefined && (item.status === 'completed' || item.status === 'failed') && (
            <span className="muted">{duration(item.weftDurationMs)}</span>
          )}
          {patchStatus(item)}
        </span>
      </div>
      <ul className="file-list">
        {item.changes.map((change) => (
          <FileRow
            key={change.path}
            item={item}
            change={change}
            cwd={cwd}
            rowKey={rowKey}
            initiallyOpen={latest && files <= 3}
          />
        ))}
      </ul>
    </div>
  );
}
