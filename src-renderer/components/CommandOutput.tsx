// Command output as text on the page: xterm's parser, without its screen (`@xterm/headless`), applies the
// output as a terminal would (colours, carriage returns, cursor movement), and the lines it leaves are drawn
// as plain elements (output-lines.ts). xterm's own screen cost a frame or more for each output shown: it
// injects its styles, measures a character with a forced layout, and lays its rows out again on every
// resize; beside eight busy agents making one took 39–51 ms and its first fit 11–57 ms more. Text also
// wraps at the page's width without being written again, is found by the page's search, and selects and
// copies as any text does.
//
// Only what is new is written, and only once the parser has taken the previous write: output that arrives
// faster than it is drawn is coalesced instead of queued, so 10 MB of output never builds a backlog. When
// more arrived than the item keeps, or the output was replaced (its `epoch` changed), it starts over from
// the kept tail. After each write only the lines from the top of the terminal's screen down are drawn
// again: rows above it (its scrollback) no longer change.
import type { Terminal as Parser } from '@xterm/headless';
import { memo, useCallback, useEffect, useRef } from 'react';
import { lastChars } from '../store/output-tail';
import type { OutputTail } from '../store/state';
import { drawChanged, makeScreen, resetScreen } from './output-lines';
import type { LineSink, OutputLine, Screen } from './output-lines';
import { terminalPieces } from './terminal-pieces';

/**
 * Most characters written at once while output streams. When more than this arrived since the last write
 * (a flood), the output starts over from the last FLOOD_LIMIT characters rather than parse what would
 * scroll past anyway; a dim line says how much was skipped. An output shown once it has stopped streaming
 * shows the whole kept tail.
 */
const FLOOD_LIMIT = 4 * 1024;
const FLOOD_REDRAW_MS = 100;
/**
 * Milliseconds of writing before the page is given back for a frame (xterm's parser only yields after
 * 12 ms, which with the page's own work in the same frame misses it).
 */
const SLICE_MS = 6;

/**
 * Writes the pieces in turn, the next once the parser has taken the last, and gives the page back (a task
 * of its own for the rest) whenever a slice of them took SLICE_MS; `done` runs after the last is parsed.
 * Stops when the output is no longer `wanted` (it was closed meanwhile).
 */
function writePaced(parser: Parser, pieces: readonly string[], wanted: () => boolean, done: () => void): void {
  let next = 0;
  let sliceStarted = performance.now();
  const step = (): void => {
    const piece = pieces[next] ?? '';
    next += 1;
    const last = next >= pieces.length;
    parser.write(piece, () => {
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

function lineElement(line: OutputLine): HTMLElement {
  const element = document.createElement('div');
  element.className = 'output-line';
  for (const run of line.runs) {
    if (run.style === '') {
      element.append(run.text);
      continue;
    }
    const span = document.createElement('span');
    span.style.cssText = run.style;
    span.textContent = run.text;
    element.append(span);
  }
  return element;
}

/** The host's children, one element per line. */
function elementSink(host: HTMLElement): LineSink {
  const fragment = (lines: readonly OutputLine[]): DocumentFragment => {
    const made = document.createDocumentFragment();
    for (const line of lines) made.append(lineElement(line));
    return made;
  };
  return {
    removeFirst(count) {
      for (let i = 0; i < count; i += 1) host.firstElementChild?.remove();
    },
    truncate(keep) {
      while (host.children.length > keep) host.lastElementChild?.remove();
    },
    prepend(lines) {
      host.prepend(fragment(lines));
    },
    append(lines) {
      host.append(fragment(lines));
    },
  };
}

export interface CommandOutputProps {
  output: OutputTail;
  label: string;
  /** Most characters shown (the last ones); the view says how many earlier ones it leaves out. */
  limit: number;
}

export const CommandOutput = memo(function CommandOutput({ output, label, limit }: CommandOutputProps) {
  const host = useRef<HTMLDivElement>(null);
  const screenRef = useRef<Screen | null>(null);
  const sink = useRef<LineSink | null>(null);
  const written = useRef<{ epoch: number; total: number; limit: number }>({ epoch: -1, total: 0, limit });
  const limitRef = useRef(limit);
  limitRef.current = limit;
  const latest = useRef(output);
  latest.current = output;
  const busy = useRef(false);

  /** Writes what the parser has not seen yet, unless a write is still being parsed (then its callback will). */
  const pump = useCallback(() => {
    const screen = screenRef.current;
    const lines = sink.current;
    if (screen === null || lines === null || busy.current) return;
    const out = latest.current;
    const seen = written.current;
    const limit = limitRef.current;
    const flooded = seen.epoch === out.epoch && out.total - seen.total > Math.min(out.kept, FLOOD_LIMIT);
    const restart = flooded || seen.epoch !== out.epoch || out.total < seen.total || seen.limit !== limit;
    if (!restart && out.total === seen.total) return;
    written.current = { epoch: out.epoch, total: out.total, limit };
    let data: string;
    if (restart) {
      resetScreen(screen);
      lines.truncate(0);
      // The view around the output says how much of a long output is left out; only a flood (more
      // arriving than can be drawn) is noted inside it.
      const shown = flooded ? Math.min(out.kept, FLOOD_LIMIT) : Math.min(out.kept, limit);
      const skipped = out.total - shown;
      const note =
        flooded && skipped > 0 ? `\x1b[2m… ${skipped.toLocaleString()} earlier characters not shown …\x1b[0m\r\n` : '';
      data = `${note}${lastChars(out, shown)}`;
    } else {
      data = lastChars(out, out.total - seen.total);
    }
    busy.current = true;
    const wanted = (): boolean => screenRef.current === screen;
    writePaced(screen.parser, terminalPieces(data), wanted, () => {
      if (!wanted()) return;
      drawChanged(screen, lines);
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
    const screen = makeScreen();
    screenRef.current = screen;
    sink.current = elementSink(element);
    written.current = { epoch: -1, total: 0, limit: limitRef.current };
    busy.current = false;
    pump();
    return () => {
      screenRef.current = null;
      sink.current = null;
      screen.parser.dispose();
    };
  }, [pump]);

  useEffect(() => pump(), [output, limit, pump]);

  return (
    <div className="output-terminal" role="log" aria-label={label}>
      <div className="output-scroll" tabIndex={0}>
        <div ref={host} className="output-lines" />
      </div>
    </div>
  );
});
