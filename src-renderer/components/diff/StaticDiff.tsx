// A file's hunks drawn as plain elements: the diffs in the conversation, where patches stream in beside
// busy agents and are read rather than worked in. A Monaco diff editor there cost the page a long task for
// each one (two editors, their views and a diff worker's answer; its first render beside eight busy agents
// took 244 ms, and the diff editors were about half of the frames the page missed). This is a table: line
// numbers, a sign, the line, the words that changed within a line that replaced another, a fold row for
// the unchanged lines between hunks, side by side or inline as the person chose (inline when the cell is
// narrower than 640 px, as the diff editor does), and Monaco's syntax colours once its tokenizers have run
// (a task of its own, one diff per frame: widget-queue.ts). Its text is the page's: found by the page's
// search, selected and copied as text. The review keeps the diff editor, where the person works hunk by
// hunk.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { useDiffLayout } from '../preferences';
import { widgetQueue } from '../widget-queue';
import type { Hunk } from './hunks';
import { inlineRows, oneSide, sidesText, splitRows } from './static-rows';
import type { DiffLine, Ranges } from './static-rows';
import { colourSides } from './token-colours';
import type { LineColours } from './token-colours';

/** Narrower than this, a side-by-side diff is shown inline (the diff editor's breakpoint). */
const SIDE_BY_SIDE_MIN_WIDTH = 640;

type Colours = { original: LineColours[]; modified: LineColours[] } | null;

/** The line's text cut where its colour changes or a changed word starts or ends. */
function codeOf(line: DiffLine, colours: Colours): ReactNode {
  const runs = colours?.[line.side][line.index] ?? [];
  if (runs.length === 0 && line.changes.length === 0) return line.text;
  const cuts = new Set<number>([0, line.text.length]);
  for (const run of runs) cuts.add(run.start);
  for (const [start, end] of line.changes) {
    cuts.add(start);
    cuts.add(end);
  }
  const points = [...cuts].filter((at) => at >= 0 && at <= line.text.length).sort((a, b) => a - b);
  const colourAt = (at: number): string => {
    let name = '';
    for (const run of runs) {
      if (run.start > at) break;
      name = run.className;
    }
    return name;
  };
  const changedAt = (at: number, changes: Ranges): boolean => changes.some(([start, end]) => at >= start && at < end);
  const parts: ReactNode[] = [];
  for (let i = 0; i + 1 < points.length; i += 1) {
    const start = points[i] ?? 0;
    const end = points[i + 1] ?? start;
    if (end <= start) continue;
    const className = [colourAt(start), changedAt(start, line.changes) ? 'sd-word' : ''].filter(Boolean).join(' ');
    const text = line.text.slice(start, end);
    parts.push(
      className === '' ? (
        text
      ) : (
        <span key={start} className={className}>
          {text}
        </span>
      ),
    );
  }
  return parts;
}

const SIGN: Record<DiffLine['kind'], string> = { added: '+', removed: '−', context: '' };

/** The cells of one line on one side: its number, its sign and its text; a filler when the side has none. */
function sideCells(line: DiffLine | null, number: number | null, colours: Colours, key: string): ReactNode[] {
  if (line === null)
    return [
      <td key={`${key}n`} className="sd-num sd-filler" />,
      <td key={`${key}c`} className="sd-code sd-filler" colSpan={2} />,
    ];
  return [
    <td key={`${key}n`} className={`sd-num is-${line.kind}`}>
      {number ?? ''}
    </td>,
    <td key={`${key}s`} className={`sd-sign is-${line.kind}`} aria-hidden="true">
      {SIGN[line.kind]}
    </td>,
    <td key={`${key}c`} className={`sd-code is-${line.kind}`}>
      {codeOf(line, colours)}
    </td>,
  ];
}

function Fold({ hidden, span }: { hidden: number; span: number }) {
  const words = `${hidden} unchanged ${hidden === 1 ? 'line' : 'lines'}`;
  return (
    <tr className="sd-gap">
      <td colSpan={span}>
        <div className="diff-fold" role="separator" aria-label={words}>
          <span aria-hidden="true">⋯</span> {words}
        </div>
      </td>
    </tr>
  );
}

export interface StaticDiffProps {
  hunks: readonly Hunk[];
  /** The file's path: picks the language of its colours. */
  path: string;
  maxHeight: number;
  label: string;
}

export function StaticDiff({ hunks, path, maxHeight, label }: StaticDiffProps) {
  const [layout] = useDiffLayout();
  const host = useRef<HTMLDivElement>(null);
  const [narrow, setNarrow] = useState(false);
  const only = useMemo(() => oneSide(hunks), [hunks]);
  const split = layout === 'split' && !narrow && only === null;
  const rows = useMemo(() => (split ? splitRows(hunks) : null), [hunks, split]);
  const lines = useMemo(() => (split ? null : inlineRows(hunks)), [hunks, split]);
  const digits = useMemo(() => {
    let widest = 1;
    for (const hunk of hunks) widest = Math.max(widest, hunk.oldStart + hunk.oldLines, hunk.newStart + hunk.newLines);
    return String(widest).length;
  }, [hunks]);

  // Side by side only as wide as it can be read: the width is known once laid out, and the switch is made
  // before that frame is painted (a resize observer's callback runs between layout and paint).
  useEffect(() => {
    const element = host.current;
    if (element === null || layout !== 'split') return;
    const observer = new ResizeObserver(([entry]) => {
      const width = entry?.contentRect.width ?? 0;
      if (width === 0) return;
      const next = width < SIDE_BY_SIDE_MIN_WIDTH;
      flushSync(() => setNarrow(next));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [layout]);

  // Colours come after the diff is drawn, in a task of their own; they belong to the hunks they were read from.
  const [coloured, setColoured] = useState<{ of: readonly Hunk[]; path: string; colours: Colours } | null>(null);
  useEffect(() => {
    let live = true;
    const cancel = widgetQueue().make(() => {
      colourSides(sidesText(hunks), path).then(
        (colours) => {
          if (live) setColoured({ of: hunks, path, colours });
        },
        (error: unknown) => console.error(error),
      );
    });
    return () => {
      live = false;
      cancel();
    };
  }, [hunks, path]);
  const colours = coloured !== null && coloured.of === hunks && coloured.path === path ? coloured.colours : null;

  return (
    <div
      ref={host}
      className="static-diff"
      role="group"
      aria-label={label}
      data-layout={split ? 'split' : 'inline'}
      data-one-sided={only ?? undefined}
      style={{ maxHeight, ['--sd-digits' as string]: digits }}
    >
      <table className="sd-table">
        {rows !== null ? (
          <>
            <colgroup>
              <col className="sd-col-num" />
              <col className="sd-col-sign" />
              <col />
              <col className="sd-col-num" />
              <col className="sd-col-sign" />
              <col />
            </colgroup>
            <tbody>
              {rows.map((row, index) =>
                row.type === 'gap' ? (
                  <Fold key={index} hidden={row.hidden} span={6} />
                ) : (
                  <tr key={index} className="sd-row">
                    {sideCells(row.left, row.left?.oldNumber ?? null, colours, 'l')}
                    {sideCells(row.right, row.right?.newNumber ?? null, colours, 'r')}
                  </tr>
                ),
              )}
            </tbody>
          </>
        ) : (
          <>
            <colgroup>
              {only !== 'added' && <col className="sd-col-num" />}
              {only !== 'removed' && <col className="sd-col-num" />}
              <col className="sd-col-sign" />
              <col />
            </colgroup>
            <tbody>
              {(lines ?? []).map((row, index) =>
                row.type === 'gap' ? (
                  <Fold key={index} hidden={row.hidden} span={only === null ? 4 : 3} />
                ) : (
                  <tr key={index} className={`sd-row is-${row.line.kind}`}>
                    {only !== 'added' && <td className={`sd-num is-${row.line.kind}`}>{row.line.oldNumber ?? ''}</td>}
                    {only !== 'removed' && <td className={`sd-num is-${row.line.kind}`}>{row.line.newNumber ?? ''}</td>}
                    <td className={`sd-sign is-${row.line.kind}`} aria-hidden="true">
                      {SIGN[row.line.kind]}
                    </td>
                    <td className={`sd-code is-${row.line.kind}`}>{codeOf(row.line, colours)}</td>
                  </tr>
                ),
              )}
            </tbody>
          </>
        )}
      </table>
    </div>
  );
}
