import { describe, expect, it } from 'vitest';
import {
  cellStyle,
  drawChanged,
  lastRow,
  makeScreen,
  palette256,
  readLines,
  SCROLLBACK,
} from '../../../src-renderer/components/output-lines';
import type { LineSink, OutputLine, Screen } from '../../../src-renderer/components/output-lines';

/** A sink that keeps its lines in a list, as the page keeps its elements. */
function listSink(): LineSink & { lines: OutputLine[] } {
  const sink = {
    lines: [] as OutputLine[],
    removeFirst: (count: number) => void sink.lines.splice(0, count),
    truncate: (keep: number) => void (sink.lines.length = Math.min(sink.lines.length, keep)),
    prepend: (lines: readonly OutputLine[]) => void sink.lines.unshift(...lines),
    append: (lines: readonly OutputLine[]) => void sink.lines.push(...lines),
  };
  return sink;
}

const write = (screen: Screen, data: string): Promise<void> =>
  new Promise((resolve) => screen.parser.write(data, resolve));

/** What a fresh read of the whole buffer gives, as text and styles. */
function whole(screen: Screen): OutputLine[] {
  const buffer = screen.parser.buffer.active;
  return readLines(buffer, 0, lastRow(buffer), screen.cell);
}

const texts = (lines: readonly OutputLine[]): string[] => lines.map((line) => line.runs.map((r) => r.text).join(''));

async function shown(data: string): Promise<OutputLine[]> {
  const screen = makeScreen();
  await write(screen, data);
  const sink = listSink();
  drawChanged(screen, sink);
  screen.parser.dispose();
  return sink.lines;
}

describe('command output read from the terminal parser', () => {
  it('applies carriage returns, backspaces and cursor movement as a terminal does', async () => {
    expect(texts(await shown('build 10%\rbuild 99%\r\nab\bc\r\none\r\ntwo\x1b[1A\rONE\x1b[1B\r\n'))).toEqual([
      'build 99%',
      'ac',
      'ONE',
      'two',
    ]);
  });

  it('leaves no empty line under output that ends with a line break, and keeps empty lines inside it', async () => {
    expect(texts(await shown('a\n\nb\n'))).toEqual(['a', '', 'b']);
    expect(texts(await shown('no break at end'))).toEqual(['no break at end']);
    expect(texts(await shown(''))).toEqual(['']);
  });

  it('joins a line the terminal wrapped back into one line, spaces at the wrap included', async () => {
    const long = `${'x'.repeat(159)} ${'y'.repeat(300)}`;
    const lines = await shown(`${long}\nnext\n`);
    expect(texts(lines)).toEqual([long, 'next']);
    expect(lines.map((line) => line.row)).toEqual([0, 3]);
  });

  it('styles runs with the palette, 256 colours, RGB, bold, dim, inverse and the rest', async () => {
    const [line] = await shown(
      '\x1b[31mred\x1b[0m plain \x1b[1;34mbold blue\x1b[0m\x1b[38;5;196mcube\x1b[48;2;1;2;3mrgb\x1b[0m\x1b[7minv\x1b[0m\x1b[2;3;4;9mdim\x1b[0m',
    );
    expect(line?.runs).toEqual([
      { text: 'red', style: 'color:var(--ansi-1)' },
      { text: ' plain ', style: '' },
      // Bold in one of the 8 plain colours is drawn in its bright twin, as terminals do.
      { text: 'bold blue', style: 'color:var(--ansi-12);font-weight:600' },
      { text: 'cube', style: 'color:#ff0000' },
      { text: 'rgb', style: 'color:#ff0000;background:#010203' },
      { text: 'inv', style: 'color:var(--output-bg);background:var(--output-fg)' },
      { text: 'dim', style: 'opacity:.6;font-style:italic;text-decoration:underline line-through' },
    ]);
    expect(palette256(16)).toBe('#000000');
    expect(palette256(231)).toBe('#ffffff');
    expect(palette256(232)).toBe('#080808');
    expect(palette256(3)).toBe('var(--ansi-3)');
  });

  it('keeps a wide character once, and a hidden one hidden', async () => {
    const lines = await shown('日本語 ok \x1b[8msecret\x1b[0m');
    expect(texts(lines)).toEqual(['日本語 ok secret']);
    expect(lines[0]?.runs.at(-1)).toEqual({ text: 'secret', style: 'color:transparent' });
  });

  it('draws in steps what a whole read draws, through streaming, redraws, a full scrollback and clears', async () => {
    // A made-up stream: lines, progress bars redrawn with \r and cursor-up, colours, long wrapped lines,
    // writes cut anywhere (inside escape sequences and lines), more lines than the scrollback keeps, and
    // a cleared scrollback, a full-screen program and a reset part way.
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const parts: string[] = [];
    for (let i = 0; i < 9000; i += 1) {
      const kind = random(12);
      if (i === 2000) parts.push('\x1b[3J\x1b[2J\x1b[H');
      else if (i === 2500) parts.push('\x1b[?1049halternate screen\n\x1b[?1049l');
      else if (i === 3000) parts.push('\x1bcafter a reset\n');
      else if (kind === 0) parts.push(`\x1b[3${random(8)}mcolour ${i}\x1b[0m\n`);
      else if (kind === 1) parts.push(`step ${i} 10%\rstep ${i} 100%\n`);
      else if (kind === 2) parts.push(`${'w'.repeat(150 + random(400))}\n`);
      else if (kind === 3) parts.push(`up ${i}\n\x1b[1A\x1b[2Kredrawn ${i}\n`);
      else parts.push(`line ${i}\n`);
    }
    const stream = parts.join('');
    const screen = makeScreen();
    const sink = listSink();
    let at = 0;
    let checks = 0;
    while (at < stream.length) {
      const size = 1 + random(3000);
      await write(screen, stream.slice(at, at + size));
      at += size;
      drawChanged(screen, sink);
      // The sink holds the lines as drawn (a line's `row` is where it started then); the screen keeps
      // where each starts now.
      const fresh = whole(screen);
      expect(sink.lines.map((line) => line.runs)).toEqual(fresh.map((line) => line.runs));
      expect(screen.rows).toEqual(fresh.map((line) => line.row));
      checks += 1;
    }
    expect(checks).toBeGreaterThan(50);
    // The scrollback filled (rows went out of it) and the sink follows it.
    expect(screen.parser.buffer.active.length).toBe(SCROLLBACK + 24);
    expect(texts(sink.lines).at(-1)).toMatch(/8999/);
    screen.parser.dispose();
  });

  it('draws everything again after the scrollback was cleared, even when new lines have filled it past where it was', async () => {
    const lines = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `row ${from + i}\n`).join('');
    for (const clear of ['\x1b[3J\x1b[2J\x1b[H', '\x1bc', '\x1b[?1049h']) {
      const screen = makeScreen();
      const sink = listSink();
      await write(screen, lines(0, 100));
      drawChanged(screen, sink);
      await write(screen, `${clear}${lines(1000, 200)}`);
      drawChanged(screen, sink);
      const fresh = whole(screen);
      expect(texts(sink.lines)).toEqual(texts(fresh));
      expect(texts(sink.lines)[0]).toBe(clear === '\x1b[?1049h' ? 'row 1177' : 'row 1000');
      screen.parser.dispose();
    }
  });

  it('leaves the lines that read as before: streaming output draws only its last line and the new ones', async () => {
    const screen = makeScreen();
    const sink = listSink();
    const appended: string[][] = [];
    const append = sink.append;
    sink.append = (lines) => {
      appended.push(texts(lines));
      append(lines);
    };
    await write(screen, 'one\ntwo\nthr');
    drawChanged(screen, sink);
    await write(screen, 'ee\nfour\n');
    drawChanged(screen, sink);
    await write(screen, '\x1b[1A\x1b[2Kfour, again\n');
    drawChanged(screen, sink);
    expect(appended).toEqual([['one', 'two', 'thr'], ['three', 'four'], ['four, again']]);
    expect(texts(sink.lines)).toEqual(['one', 'two', 'three', 'four, again']);
    screen.parser.dispose();
  });

  it('has no style for a plain cell', async () => {
    const screen = makeScreen();
    await write(screen, 'x');
    const cell = screen.parser.buffer.active.getLine(0)?.getCell(0);
    expect(cell === undefined ? null : cellStyle(cell)).toBe('');
    screen.parser.dispose();
  });
});
