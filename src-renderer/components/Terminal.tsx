// Command output in xterm.js (ANSI colours, cursor movement, carriage returns as a terminal shows them).
// Only what is new is written, and only once xterm has parsed the previous write: output that arrives
// faster than xterm draws is coalesced instead of queued, so 10 MB of output never builds a backlog.
// When more arrived than the item keeps, or the output was replaced (its `epoch` changed), the terminal
// starts over from the kept tail.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal as XTerm } from '@xterm/xterm';
import type { ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { memo, useCallback, useEffect, useRef } from 'react';
import { lastChars } from '../store/output-tail';
import type { OutputTail } from '../store/state';
import { terminalPieces } from './terminal-pieces';
import { widgetQueue } from './widget-queue';
import { resolvedScheme, useColorScheme } from './use-color-scheme';

/**
 * Most characters written at once while output streams. When more than this arrived since the last write
 * (a flood), the terminal starts over from the last FLOOD_LIMIT characters rather than parse what it
 * would scroll past anyway (xterm pays per line); a dim line says how much was skipped. A terminal that
 * opens on output that is not streaming shows the whole kept tail.
 */
const FLOOD_LIMIT = 4 * 1024;
const FLOOD_REDRAW_MS = 100;
/** A one-line output takes one row (xterm draws at least one). */
const MIN_ROWS = 1;
const MAX_ROWS = 18;

function themeFor(dark: boolean): ITheme {
  return dark
    ? {
        background: '#141518',
        foreground: '#d5d7dd',
        cursor: '#141518',
        selectionBackground: '#3b3f4a',
        black: '#1d1f23',
        brightBlack: '#5c6370',
      }
    : {
        background: '#f6f7f9',
        foreground: '#24292f',
        cursor: '#f6f7f9',
        selectionBackground: '#c8d1e0',
        black: '#24292f',
        white: '#8c959f',
        brightWhite: '#6e7781',
        yellow: '#9a6700',
        brightYellow: '#7d4e00',
      };
}

/** Rows the output takes in the terminal as it is now: its lines, wide ones wrapped at the width. */
function usedRows(xterm: XTerm): number {
  const buffer = xterm.buffer.active;
  return buffer.baseY + buffer.cursorY + 1;
}

/**
 * The rows follow the output (one per row it takes, wrapped lines included) up to MAX_ROWS, after which
 * it scrolls. Growing pulls the lines that had scrolled out back into view, so the first line of a short
 * output is always shown.
 */
function fitRows(xterm: XTerm): void {
  const rows = Math.max(MIN_ROWS, Math.min(MAX_ROWS, usedRows(xterm)));
  if (rows !== xterm.rows) xterm.resize(xterm.cols, rows);
}

/** The width decides the columns. Says whether they changed (the output must then be wrapped anew). */
function fitCols(xterm: XTerm, addon: FitAddon): boolean {
  const proposed = addon.proposeDimensions()?.cols;
  // Not laid out yet (or hidden): the width reads as NaN; keep the current size until it is known.
  if (proposed === undefined || !Number.isInteger(proposed)) return false;
  const cols = Math.max(20, proposed);
  if (cols === xterm.cols) return false;
  xterm.resize(cols, xterm.rows);
  return true;
}

/**
 * Milliseconds of writing before the page is given back for a frame. xterm only yields after 12 ms of
 * parsing, which with the page's own work in the same frame misses it.
 */
const SLICE_MS = 6;

/**
 * Writes the pieces in turn, the next once xterm has parsed the last, and gives the page back (a task of
 * its own for the rest) whenever a slice of them took SLICE_MS; `done` runs after the last is parsed.
 * Stops when the terminal is no longer `wanted` (it was closed meanwhile).
 */
function writePaced(xterm: XTerm, pieces: readonly string[], wanted: () => boolean, done: () => void): void {
  let next = 0;
  let sliceStarted = performance.now();
  const step = (): void => {
    const piece = pieces[next] ?? '';
    next += 1;
    const last = next >= pieces.length;
    xterm.write(piece, () => {
      if (last) done();
      else if (performance.now() - sliceStarted < SLICE_MS) step();
      else
        window.setTimeout(() => {
          if (!wanted()) return;
          sliceStarted = performance.now();
          step();
        }, 0);
    });
  };
  step();
}

export interface TerminalProps {
  output: OutputTail;
  label: string;
  /** Most characters shown (the last ones); the view says how many earlier ones it leaves out. */
  limit: number;
}

export const Terminal = memo(function Terminal({ output, label, limit }: TerminalProps) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<{ xterm: XTerm; fit: FitAddon } | null>(null);
  const written = useRef<{ epoch: number; total: number; limit: number }>({ epoch: -1, total: 0, limit });
  const limitRef = useRef(limit);
  limitRef.current = limit;
  /** The last write ended with a line break that is held back (see pump). */
  const heldBreak = useRef(false);
  const dark = useColorScheme() === 'dark';
  const latest = useRef(output);
  latest.current = output;
  const busy = useRef(false);
  /** The scheme of the terminal's theme (dark or not); null before it is made. */
  const themed = useRef<boolean | null>(null);

  /** Writes what xterm has not seen yet, unless a write is still being parsed (then its callback will). */
  const pump = useCallback(() => {
    const current = term.current;
    if (current === null || busy.current) return;
    const out = latest.current;
    const seen = written.current;
    const limit = limitRef.current;
    const flooded = seen.epoch === out.epoch && out.total - seen.total > Math.min(out.kept, FLOOD_LIMIT);
    const restart = flooded || seen.epoch !== out.epoch || out.total < seen.total || seen.limit !== limit;
    if (!restart && out.total === seen.total) return;
    written.current = { epoch: out.epoch, total: out.total, limit };
    let data: string;
    if (restart) {
      current.xterm.reset();
      heldBreak.current = false;
      // The view around the terminal says how much of a long output is left out; only a flood (more
      // arriving than can be drawn) is noted inside the terminal.
      const shown = flooded ? Math.min(out.kept, FLOOD_LIMIT) : Math.min(out.kept, limit);
      const skipped = out.total - shown;
      const note =
        flooded && skipped > 0 ? `\x1b[2m… ${skipped.toLocaleString()} earlier characters not shown …\x1b[0m\r\n` : '';
      data = `\x1b[?25l${note}${lastChars(out, shown)}`;
    } else {
      data = lastChars(out, out.total - seen.total);
    }
    // A final line break would open a row of its own under the output: hold it back until more
    // output follows.
    if (heldBreak.current) data = `\n${data}`;
    heldBreak.current = data.endsWith('\n');
    if (heldBreak.current) data = data.slice(0, data.endsWith('\r\n') ? -2 : -1);
    busy.current = true;
    const wanted = (): boolean => term.current === current;
    writePaced(current.xterm, terminalPieces(data), wanted, () => {
      if (!wanted()) return;
      fitRows(current.xterm);
      // In a flood, draw about ten times a second and leave the other frames to the rest of the page.
      if (flooded) {
        window.setTimeout(() => {
          busy.current = false;
          pump();
        }, FLOOD_REDRAW_MS);
      } else {
        busy.current = false;
        pump();
      }
    });
  }, []);

  /** Makes the terminal in `element` and writes the output into it (see widget-queue.ts for when). */
  const makeTerminal = useCallback(
    (element: HTMLElement): { xterm: XTerm; observer: ResizeObserver } => {
      const scheme = resolvedScheme() === 'dark';
      const xterm = new XTerm({
        convertEol: true,
        disableStdin: true,
        cursorBlink: false,
        cursorInactiveStyle: 'none',
        scrollback: 5000,
        fontSize: 12,
        lineHeight: 1.15,
        fontFamily: 'ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
        theme: themeFor(scheme),
        rows: MIN_ROWS,
        allowProposedApi: false,
        screenReaderMode: false,
      });
      const addon = new FitAddon();
      xterm.loadAddon(addon);
      xterm.open(element);
      xterm.write('\x1b[?25l');
      term.current = { xterm, fit: addon };
      written.current = { epoch: -1, total: 0, limit: limitRef.current };
      heldBreak.current = false;
      busy.current = false;
      // The element takes the height xterm needs for its rows. A new width writes the output again:
      // xterm's own reflow does not always bring back the rows a wrapped line gains, so the row count
      // (fitRows) would miss them and the first rows would scroll out of view.
      const observer = new ResizeObserver(() => {
        if (!fitCols(xterm, addon)) return;
        written.current = { ...written.current, epoch: -1 };
        pump();
      });
      observer.observe(element);
      themed.current = scheme;
      pump();
      return { xterm, observer };
    },
    // pump is stable (a callback without dependencies): the terminal is made once per mount.
    [pump],
  );

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    let made: { xterm: XTerm; observer: ResizeObserver } | null = null;
    const cancel = widgetQueue().make(() => {
      made = makeTerminal(element);
    });
    return () => {
      cancel();
      if (made === null) return;
      made.observer.disconnect();
      term.current = null;
      made.xterm.dispose();
    };
  }, [makeTerminal]);

  useEffect(() => pump(), [output, limit, pump]);

  // A new theme makes xterm inject its styles again (a style recalculation of the whole page): only when
  // the scheme is not the one the terminal was made with.
  useEffect(() => {
    if (term.current === null || themed.current === dark) return;
    themed.current = dark;
    term.current.xterm.options.theme = themeFor(dark);
  }, [dark]);

  return (
    <div className="output-terminal" role="log" aria-label={label}>
      <div ref={host} className="terminal-host" />
    </div>
  );
});
