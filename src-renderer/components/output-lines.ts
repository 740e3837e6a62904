// Command output read from a terminal's buffer (xterm's headless parser: colours, carriage returns and
// cursor movement as a terminal applies them) as lines of styled runs, for the page to draw as text. Rows
// the terminal wrapped are joined back into the line they came from: the page wraps them at its own width.
import { Terminal as Parser } from '@xterm/headless';
import type { IBuffer, IBufferCell, IBufferLine } from '@xterm/headless';

/** A stretch of one line drawn in one style; `style` is CSS declarations ('' for the default look). */
export interface Run {
  text: string;
  style: string;
}

/** A line of output: its runs, and the buffer row it starts at. */
export interface OutputLine {
  row: number;
  runs: Run[];
}

/** The 16 colours of the palette are the page's (CSS variables, set per theme: conversation.css). */
const paletteVar = (index: number): string => `var(--ansi-${index})`;

/** A colour of xterm's 256-colour palette above the 16: the 6×6×6 cube, then 24 greys. */
export function palette256(index: number): string {
  if (index < 16) return paletteVar(index);
  if (index >= 232) {
    const grey = 8 + (index - 232) * 10;
    return hex(grey, grey, grey);
  }
  const cube = index - 16;
  const level = (value: number): number => (value === 0 ? 0 : 55 + value * 40);
  return hex(level(Math.floor(cube / 36)), level(Math.floor(cube / 6) % 6), level(cube % 6));
}

function hex(r: number, g: number, b: number): string {
  return `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;
}

function colour(mode: 'fg' | 'bg', cell: IBufferCell, bold: boolean): string | null {
  const palette = mode === 'fg' ? cell.isFgPalette() : cell.isBgPalette();
  const rgb = mode === 'fg' ? cell.isFgRGB() : cell.isBgRGB();
  const value = mode === 'fg' ? cell.getFgColor() : cell.getBgColor();
  if (rgb) return hex((value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff);
  if (!palette) return null;
  // As a terminal draws it: bold text in one of the 8 plain colours takes its bright twin.
  return palette256(bold && mode === 'fg' && value < 8 ? value + 8 : value);
}

/** The CSS for a cell's attributes ('' when it has none). */
export function cellStyle(cell: IBufferCell): string {
  if (cell.isAttributeDefault()) return '';
  const bold = cell.isBold() !== 0;
  let fg = colour('fg', cell, bold);
  let bg = colour('bg', cell, false);
  if (cell.isInverse() !== 0) {
    [fg, bg] = [bg ?? 'var(--output-bg)', fg ?? 'var(--output-fg)'];
  }
  const parts: string[] = [];
  if (cell.isInvisible() !== 0) parts.push('color:transparent');
  else if (fg !== null) parts.push(`color:${fg}`);
  if (bg !== null) parts.push(`background:${bg}`);
  if (bold) parts.push('font-weight:600');
  if (cell.isDim() !== 0) parts.push('opacity:.6');
  if (cell.isItalic() !== 0) parts.push('font-style:italic');
  const lines = [cell.isUnderline() !== 0 ? 'underline' : '', cell.isStrikethrough() !== 0 ? 'line-through' : ''];
  const decoration = lines.filter(Boolean).join(' ');
  if (decoration !== '') parts.push(`text-decoration:${decoration}`);
  return parts.join(';');
}

/**
 * The runs of one buffer row, appended to `runs`: up to its last character when `trim` (the blank cells a
 * terminal pads a row with are left out, as xterm's own `translateToString(true)` leaves them out), else
 * the whole row (one the next row continues).
 */
function rowRuns(line: IBufferLine, cell: IBufferCell, runs: Run[], trim: boolean): void {
  const text = line.translateToString(trim);
  if (text === '') return;
  let taken = 0;
  for (let x = 0; x < line.length && taken < text.length; x += 1) {
    line.getCell(x, cell);
    // The second half of a wide character is a cell of its own with no characters.
    if (cell.getWidth() === 0) continue;
    const chars = cell.getChars() || ' ';
    taken += chars.length;
    const style = cellStyle(cell);
    const last = runs[runs.length - 1];
    if (last !== undefined && last.style === style) last.text += chars;
    else runs.push({ text: chars, style });
  }
}

/** The last row with output in it: the cursor's, or the one above when the cursor waits at an empty line. */
export function lastRow(buffer: IBuffer): number {
  const cursorRow = buffer.baseY + buffer.cursorY;
  const cursorLine = buffer.getLine(cursorRow);
  // Output that ended with a line break leaves the cursor at the start of an empty row: not a line yet.
  if (cursorRow > 0 && buffer.cursorX === 0 && cursorLine !== undefined && !cursorLine.isWrapped) {
    if (cursorLine.translateToString(true) === '') return cursorRow - 1;
  }
  return cursorRow;
}

/**
 * The lines of `buffer` from the one that holds row `from` through `last` (inclusive), each with its first
 * row. A line the terminal wrapped across rows is one line here.
 */
export function readLines(buffer: IBuffer, from: number, last: number, cell: IBufferCell): OutputLine[] {
  let row = Math.max(0, from);
  while (row > 0 && buffer.getLine(row)?.isWrapped === true) row -= 1;
  const lines: OutputLine[] = [];
  for (; row <= last; row += 1) {
    const line = buffer.getLine(row);
    if (line === undefined) break;
    const trim = row === last || buffer.getLine(row + 1)?.isWrapped !== true;
    const current = lines[lines.length - 1];
    if (line.isWrapped && current !== undefined) rowRuns(line, cell, current.runs, trim);
    else {
      const runs: Run[] = [];
      rowRuns(line, cell, runs, trim);
      lines.push({ row, runs });
    }
  }
  return lines;
}

/** The terminal the output is applied in: its width only decides where long lines are cut and joined again. */
const COLS = 160;
const ROWS = 24;
/** Rows kept above the screen; older ones go (a flood or "Show all" of a long log shows its last rows). */
export const SCROLLBACK = 5000;

/** Where lines are drawn, in order: the page's elements, or a test's list. */
export interface LineSink {
  removeFirst(count: number): void;
  /** Keeps the first `keep` lines. */
  truncate(keep: number): void;
  prepend(lines: readonly OutputLine[]): void;
  append(lines: readonly OutputLine[]): void;
}

/** The parser, and what of its buffer has been drawn. */
export interface Screen {
  parser: Parser;
  cell: IBufferCell;
  /** Scroll events since the last draw: with a full scrollback, each one let the oldest row go. */
  scrolls: number;
  /** The first row of each line drawn, in order. */
  rows: number[];
  /** What each line drawn shows (its runs, as one string): a line drawn again unchanged is left as it is. */
  keys: string[];
  /** The top of the terminal's screen at the last draw: the rows above it no longer change. */
  baseY: number;
  /** The scrollback was cleared, the terminal reset, or its other screen shown since the last draw. */
  cleared: boolean;
  /** The buffer drawn at the last draw (a full-screen program switches to the alternate one). */
  type: 'normal' | 'alternate';
}

export function makeScreen(): Screen {
  const parser = new Parser({
    cols: COLS,
    rows: ROWS,
    scrollback: SCROLLBACK,
    convertEol: true,
    allowProposedApi: true,
    logLevel: 'off',
  });
  const screen: Screen = {
    parser,
    cell: parser.buffer.active.getNullCell(),
    scrolls: 0,
    rows: [],
    keys: [],
    baseY: 0,
    cleared: false,
    type: 'normal',
  };
  parser.onScroll(() => {
    screen.scrolls += 1;
  });
  const cleared = (): boolean => {
    screen.cleared = true;
    // Not handled: the terminal goes on to apply it.
    return false;
  };
  // Erase the scrollback (ED 3), and a full reset (RIS).
  parser.parser.registerCsiHandler({ final: 'J' }, (params) => (params[0] === 3 ? cleared() : false));
  parser.parser.registerEscHandler({ final: 'c' }, cleared);
  return screen;
}

/**
 * Draws into `sink` the lines that may have changed since the last draw: those from the top of the screen
 * as it was then (the cursor cannot reach above it), after letting go of the rows a full scrollback gave
 * up. Everything is drawn again only when the scrollback was cleared.
 */
export function drawChanged(screen: Screen, sink: LineSink): void {
  const buffer = screen.parser.buffer.active;
  let from: number;
  if (screen.cleared || buffer.type !== screen.type || buffer.baseY < screen.baseY) {
    from = 0;
    screen.rows = [];
    screen.keys = [];
    sink.truncate(0);
  } else {
    // With a full scrollback, each scroll that did not move the screen's top down let the oldest row go.
    const full = buffer.length >= SCROLLBACK + ROWS;
    const trimmed = full ? Math.max(0, screen.scrolls - (buffer.baseY - screen.baseY)) : 0;
    from = screen.baseY - trimmed;
    if (trimmed > 0) {
      screen.rows = screen.rows.map((row) => row - trimmed);
      let gone = 0;
      while (gone < screen.rows.length && (screen.rows[gone] ?? 0) < 0) gone += 1;
      sink.removeFirst(gone);
      screen.rows.splice(0, gone);
      screen.keys.splice(0, gone);
      // What is left of a line whose first rows went.
      const first = screen.rows[0] ?? Math.max(0, from);
      if (gone > 0 && first > 0) {
        const rest = readLines(buffer, 0, Math.min(first, buffer.length) - 1, screen.cell);
        sink.prepend(rest);
        screen.rows.unshift(...rest.map((line) => line.row));
        screen.keys.unshift(...rest.map(lineKey));
      }
    }
  }
  screen.scrolls = 0;
  screen.cleared = false;
  screen.type = buffer.type;
  screen.baseY = buffer.baseY;
  from = Math.max(0, from);
  // The lines from the one holding row `from` on are drawn again (readLines starts at that line's first row).
  let keep = 0;
  while (keep < screen.rows.length && (screen.rows[keep] ?? 0) < from) keep += 1;
  if (keep > 0 && buffer.getLine(from)?.isWrapped === true) keep -= 1;
  const lines = readLines(buffer, from, lastRow(buffer), screen.cell);
  const keys = lines.map(lineKey);
  // Lines that read as they were drawn stay: while output streams, only its last line and the new ones change.
  let same = 0;
  while (same < lines.length && keep + same < screen.keys.length && screen.keys[keep + same] === keys[same]) same += 1;
  sink.truncate(keep + same);
  sink.append(lines.slice(same));
  screen.rows.length = keep;
  screen.keys.length = keep;
  for (const [i, line] of lines.entries()) {
    screen.rows.push(line.row);
    screen.keys.push(keys[i] ?? '');
  }
}

function lineKey(line: OutputLine): string {
  return line.runs.map((run) => `${run.style}\u0000${run.text}`).join('\u0001');
}

/** Forgets what was drawn (the output starts over; the sink is emptied by the caller). */
export function resetScreen(screen: Screen): void {
  screen.parser.reset();
  screen.scrolls = 0;
  screen.cleared = false;
  screen.type = 'normal';
  screen.baseY = 0;
  screen.rows = [];
  screen.keys = [];
}
