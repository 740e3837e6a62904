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

/**
 * Lines the output would take, capped: the terminal grows with its output up to MAX_ROWS, then scrolls.
 * A final line break opens no row of its own (it is written only once more output follows it).
 */
function rowsFor(output: OutputTail): number {
  const text = lastChars(output, 8192);
  let lines = 1;
  for (let i = text.length - 1; i >= 0 && lines < MAX_ROWS; i--) if (text.charCodeAt(i) === 10) lines += 1;
  if (text.endsWith('\n')) lines -= 1;
  return Math.max(MIN_ROWS, Math.min(MAX_ROWS, lines));
}

function resize(xterm: XTerm, fit: FitAddon, rows: number): void {
  const proposed = fit.proposeDimensions()?.cols;
  // Not laid out yet (or hidden): the width reads as NaN; keep the current size until it is known.
  if (proposed === undefined || !Number.isInteger(proposed)) return;
  const cols = Math.max(20, proposed);
  if (cols !== xterm.cols || rows !== xterm.rows) xterm.resize(cols, rows);
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
  /** The last write ended with a line break that is held back (see rowsFor). */
  const heldBreak = useRef(false);
  const dark = useColorScheme() === 'dark';
  const rows = rowsFor(output);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const latest = useRef(output);
  latest.current = output;
  const busy = useRef(false);

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
    // A final line break would scroll the first line out of a terminal sized to the output: hold it
    // back until more output follows.
    if (heldBreak.current) data = `\n${data}`;
    heldBreak.current = data.endsWith('\n');
    if (heldBreak.current) data = data.slice(0, data.endsWith('\r\n') ? -2 : -1);
    busy.current = true;
    current.xterm.write(data, () => {
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

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const xterm = new XTerm({
      convertEol: true,
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      scrollback: 5000,
      fontSize: 12,
      lineHeight: 1.15,
      fontFamily: 'ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      theme: themeFor(resolvedScheme() === 'dark'),
      rows: MIN_ROWS,
      allowProposedApi: false,
      screenReaderMode: false,
    });
    const fit = new FitAddon();
    xterm.loadAddon(fit);
    xterm.open(element);
    xterm.write('\x1b[?25l');
    term.current = { xterm, fit };
    written.current = { epoch: -1, total: 0, limit: limitRef.current };
    heldBreak.current = false;
    busy.current = false;
    // The width decides the columns; the rows follow the output (rowsFor), and the element takes the
    // height xterm needs for them.
    const observer = new ResizeObserver(() => resize(xterm, fit, rowsRef.current));
    observer.observe(element);
    return () => {
      observer.disconnect();
      term.current = null;
      xterm.dispose();
    };
  }, []);

  useEffect(() => pump(), [output, limit, pump]);

  useEffect(() => {
    const current = term.current;
    if (current !== null) resize(current.xterm, current.fit, rows);
  }, [rows]);

  useEffect(() => {
    if (term.current !== null) term.current.xterm.options.theme = themeFor(dark);
  }, [dark]);

  return (
    <div className="output-terminal" role="log" aria-label={label}>
      <div ref={host} className="terminal-host" />
    </div>
  );
});
