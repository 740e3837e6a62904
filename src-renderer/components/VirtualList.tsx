// A virtualized vertical list for rows of unknown, changing height (messages that stream, terminals that
// grow, diffs that load). Only rows near the viewport are mounted, in normal flow between two spacers that
// stand for the rows above and below. Each mounted row is measured with a ResizeObserver and its height
// remembered by key; the spacers depend only on rows that are not mounted, so a mounted row that grows
// (a streaming message) moves the rows below it without any re-render. The list sticks to the bottom
// while the bottom is in view; elsewhere the browser's scroll anchoring keeps what is read in place.
// The measurements (row heights, the viewport, whether the bottom is in view) live in refs, outside React
// state, by design: a scroll re-renders the list only when the mounted range changes (syncRange). Render
// reads them, which the React Compiler's rules forbid; Weft does not compile with it.
/* eslint-disable react-hooks/refs, react-hooks/preserve-manual-memoization -- measurements are read in render by design (above) */
import { memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode, Ref } from 'react';
import { flushSync } from 'react-dom';

export interface VirtualListHandle {
  scrollToBottom(): void;
  /** Scrolls the row with this key to the top of the viewport (if it exists). */
  scrollToKey(key: string): void;
}

export interface VirtualListProps<R extends { key: string }> {
  rows: readonly R[];
  /** A guess of a row's height before it is measured. */
  estimate: (row: R) => number;
  renderRow: (row: R) => ReactNode;
  label: string;
  className?: string;
  /** Pixels rendered beyond each edge of the viewport. */
  overscan?: number;
  /** Space below the last row. */
  bottomPadding?: number;
  onAtBottomChange?: (atBottom: boolean) => void;
  handle?: Ref<VirtualListHandle>;
}

const BOTTOM_SLACK_PX = 24;

interface Layout<R> {
  rows: readonly R[];
  index: Map<string, number>;
  heights: Float64Array;
  /** offsets[i] is the top of row i; offsets[rows.length] the total height. */
  offsets: Float64Array;
}

interface Range {
  first: number;
  last: number;
}

/** Index of the row containing `y` (the last row whose top is ≤ y). */
function rowAt(offsets: Float64Array, count: number, y: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((offsets[mid] ?? 0) <= y) low = mid;
    else high = mid - 1;
  }
  return Math.max(0, low);
}

/**
 * The rows to mount for a viewport. Before the viewport is measured (the first render) it counts as
 * 1200 px tall and, when the list starts at the bottom, as showing the last rows.
 */
function visibleRange(
  layout: Layout<unknown>,
  viewport: { top: number; height: number },
  overscan: number,
  atBottom: boolean,
): Range {
  const count = layout.rows.length;
  if (count === 0) return { first: 0, last: -1 };
  const measured = viewport.height !== 0;
  const height = measured ? viewport.height : 1200;
  // Rows not measured yet may be taller than estimated, so the page can scroll past the estimated end:
  // whatever lies beyond it, the last rows are what is on screen.
  const end = Math.max(0, (layout.offsets[count] ?? 0) - height);
  const top = measured || !atBottom ? Math.min(viewport.top, end) : end;
  return {
    first: rowAt(layout.offsets, count, Math.max(0, top - overscan)),
    last: rowAt(layout.offsets, count, top + height + overscan),
  };
}

function recompute(layout: Layout<unknown>, from: number): void {
  for (let i = from; i < layout.rows.length; i++)
    layout.offsets[i + 1] = (layout.offsets[i] ?? 0) + (layout.heights[i] ?? 0);
}

const Measured = memo(function Measured({
  rowKey,
  observe,
  children,
}: {
  rowKey: string;
  observe: (element: HTMLDivElement | null) => (() => void) | undefined;
  children: ReactNode;
}) {
  return (
    <div className="vrow" data-key={rowKey} ref={observe}>
      {children}
    </div>
  );
});

/** Rendered rows by row object, per row renderer: a new renderer starts afresh. */
const rendered = new WeakMap<object, WeakMap<object, ReactNode>>();

function renderedRows(renderRow: object): WeakMap<object, ReactNode> {
  let rows = rendered.get(renderRow);
  if (rows === undefined) {
    rows = new WeakMap();
    rendered.set(renderRow, rows);
  }
  return rows;
}

export function VirtualList<R extends { key: string }>(props: VirtualListProps<R>) {
  const {
    rows,
    estimate,
    renderRow,
    label,
    className,
    overscan = 600,
    bottomPadding = 0,
    onAtBottomChange,
    handle,
  } = props;
  const scroller = useRef<HTMLDivElement>(null);
  /** Measured heights by row key; they outlive layouts (a row keeps its height when rows are added). */
  const sizes = useRef(new Map<string, number>());
  const viewport = useRef({ top: 0, height: 0 });
  const mounted = useRef<Range>({ first: 0, last: -1 });
  const [, rerender] = useState(0);
  const atBottom = useRef(true);
  /** Rows came at the bottom while it was in view: follow them once they are laid out (see below). */
  const followNew = useRef(false);
  /** Where the list last scrolled itself to the bottom: a scroll event there is its own, not a person's. */
  const ownBottom = useRef<number | null>(null);
  const onAtBottomRef = useRef(onAtBottomChange);
  const overscanRef = useRef(overscan);
  useLayoutEffect(() => {
    onAtBottomRef.current = onAtBottomChange;
    overscanRef.current = overscan;
  });

  const layout = useMemo<Layout<R>>(() => {
    const count = rows.length;
    const next: Layout<R> = {
      rows,
      index: new Map(),
      heights: new Float64Array(count),
      offsets: new Float64Array(count + 1),
    };
    rows.forEach((row, i) => {
      next.index.set(row.key, i);
      next.heights[i] = sizes.current.get(row.key) ?? estimate(row);
    });
    recompute(next, 0);
    return next;
  }, [rows, estimate]);
  const layoutRef = useRef(layout);
  // Before the effects below (and before any scroll or resize callback) read it.
  useLayoutEffect(() => {
    layoutRef.current = layout;
  }, [layout]);

  const setAtBottom = useCallback((value: boolean) => {
    if (atBottom.current === value) return;
    atBottom.current = value;
    onAtBottomRef.current?.(value);
  }, []);

  const toBottom = useCallback((element: HTMLElement) => {
    element.scrollTop = element.scrollHeight;
    ownBottom.current = element.scrollTop;
  }, []);

  /**
   * Re-renders when the rows that should be mounted are not the mounted ones. Called from scroll events
   * and ResizeObserver callbacks, where layout is clean: rendering right there (flushSync) lets the
   * browser lay the new rows out once in this frame, instead of a frame later after a forced layout.
   */
  const syncRange = useCallback(() => {
    const range = visibleRange(layoutRef.current, viewport.current, overscanRef.current, atBottom.current);
    if (range.first !== mounted.current.first || range.last !== mounted.current.last)
      flushSync(() => rerender((n) => n + 1));
  }, []);

  const observer = useMemo(
    () =>
      new ResizeObserver((entries) => {
        const current = layoutRef.current;
        let dirtyFrom = Infinity;
        for (const entry of entries) {
          if (!(entry.target instanceof HTMLElement)) continue;
          const key = entry.target.dataset.key;
          if (key === undefined) continue;
          const height = entry.borderBoxSize[0]?.blockSize ?? entry.target.offsetHeight;
          sizes.current.set(key, height);
          const index = current.index.get(key);
          if (index === undefined || Math.abs((current.heights[index] ?? 0) - height) < 0.5) continue;
          current.heights[index] = height;
          dirtyFrom = Math.min(dirtyFrom, index);
        }
        const follow = followNew.current;
        followNew.current = false;
        if (dirtyFrom === Infinity && !follow) return;
        if (dirtyFrom !== Infinity) recompute(current, dirtyFrom);
        // Layout is clean inside a ResizeObserver callback: following the bottom here costs no extra layout.
        const element = scroller.current;
        if (element !== null && atBottom.current) toBottom(element);
        syncRange();
      }),
    [syncRange, toBottom],
  );
  useEffect(() => () => observer.disconnect(), [observer]);

  const observe = useCallback(
    (element: HTMLDivElement | null) => {
      if (element === null) return undefined;
      observer.observe(element);
      return () => observer.unobserve(element);
    },
    [observer],
  );

  const readViewport = useCallback(() => {
    const element = scroller.current;
    if (element === null) return;
    const fromBottom = element.scrollHeight - element.scrollTop - element.clientHeight;
    // The list's own scroll to the bottom, read after the rows it brought in were measured taller than
    // guessed: it is still following (a person's scroll lands elsewhere). Judged by the end alone, a jump
    // to the latest of a long turn stopped a turn's height short of it, the Latest button still shown.
    const own = atBottom.current && ownBottom.current !== null && Math.abs(element.scrollTop - ownBottom.current) < 1;
    if (own && fromBottom >= BOTTOM_SLACK_PX) toBottom(element);
    else if (!own) {
      ownBottom.current = null;
      setAtBottom(fromBottom < BOTTOM_SLACK_PX);
    }
    viewport.current = { top: element.scrollTop, height: element.clientHeight };
    syncRange();
  }, [setAtBottom, syncRange, toBottom]);

  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const resize = new ResizeObserver(() => {
      if (atBottom.current) toBottom(element);
      readViewport();
    });
    resize.observe(element);
    return () => resize.disconnect();
  }, [readViewport, toBottom]);

  // New rows (a new item, a new turn) arrive at the bottom: keep following it, once they are laid out. A
  // new row is observed as it mounts, and the ResizeObserver above reports it after the frame's layout,
  // where following costs nothing. Reading scrollHeight here instead laid the page out in the middle of
  // React's commit, once more in a frame whose other work changed it again (with 8 agents streaming, 56 ms
  // of a 62 ms frame were such layouts). Run on every new layout, it had been the page's costliest effect
  // (0.7 s of a 50 s run), hence only when rows come or go. Space added below the rows changes no row, so
  // that is followed here.
  const lastKey = rows[rows.length - 1]?.key;
  useLayoutEffect(() => {
    if (atBottom.current) followNew.current = true;
  }, [rows.length, lastKey]);
  const padded = useRef(bottomPadding);
  useLayoutEffect(() => {
    if (padded.current === bottomPadding) return;
    padded.current = bottomPadding;
    const element = scroller.current;
    if (element !== null && atBottom.current) toBottom(element);
  }, [bottomPadding, toBottom]);

  useImperativeHandle(
    handle,
    () => ({
      scrollToBottom() {
        const element = scroller.current;
        if (element === null) return;
        setAtBottom(true);
        toBottom(element);
        readViewport();
      },
      scrollToKey(key) {
        const element = scroller.current;
        const index = layoutRef.current.index.get(key);
        if (element === null || index === undefined) return;
        setAtBottom(false);
        element.scrollTop = layoutRef.current.offsets[index] ?? 0;
        readViewport();
      },
    }),
    [readViewport, setAtBottom, toBottom],
  );

  // Rendered rows are kept per row object, so a re-render of the list re-renders no row.
  const elements = renderedRows(renderRow);
  const range = visibleRange(layout, viewport.current, overscan, atBottom.current);
  mounted.current = range;
  const visible: ReactNode[] = [];
  for (let i = range.first; i <= range.last; i++) {
    const row = rows[i];
    if (row === undefined) continue;
    let element = elements.get(row);
    if (element === undefined) {
      element = renderRow(row);
      elements.set(row, element);
    }
    visible.push(
      <Measured key={row.key} rowKey={row.key} observe={observe}>
        {element}
      </Measured>,
    );
  }
  const total = layout.offsets[rows.length] ?? 0;
  const above = layout.offsets[range.first] ?? 0;
  const below = total - (layout.offsets[range.last + 1] ?? total);

  return (
    <div
      ref={scroller}
      className={`vlist ${className ?? ''}`}
      onScroll={readViewport}
      tabIndex={0}
      aria-label={label}
      role="region"
    >
      <div className="vlist-space">
        <div className="vlist-spacer" style={{ height: above }} />
        {visible}
        <div className="vlist-spacer" style={{ height: below + bottomPadding }} />
      </div>
    </div>
  );
}
