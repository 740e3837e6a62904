// Diff text cut to what one message may carry (WEFT_DIFF_MAX_CHARS): hunks are written while they fit and
// counted after, a marker line says what was left out, and the totals go beside the text (WeftDiffCut).
import type { WeftDiffCut } from '../../src-preload/protocol';
import { WEFT_DIFF_MAX_CHARS } from '../../src-preload/protocol/diff-limits';

/** Room kept for the marker line, so that text and marker together stay within the cap. */
const MARKER_ROOM = 240;

/**
 * One hunk: its `@@` header and its lines (`' '`, `'-'`, `'+'` or `'\'`-prefixed), without line ends;
 * `complete` is false when rendering stopped early, past the budget it was given (see `HunkLines`).
 */
export interface HunkText {
  header: string;
  lines: readonly string[];
  complete: boolean;
}

/**
 * A hunk's lines as they are rendered, within a budget of characters: once past it, `full` says the rest
 * need not be rendered, since the hunk cannot be shown whole. A new file of 8 MB is one hunk, and a turn's
 * diff is made again after each step: without this, every time the whole file was turned into strings
 * to keep the first megabyte.
 */
export class HunkLines {
  readonly lines: string[] = [];
  private size = 0;

  constructor(private readonly budget: number) {}

  get full(): boolean {
    return this.size > this.budget;
  }

  push(line: string): void {
    this.lines.push(line);
    this.size += line.length + 1;
  }

  text(header: string): HunkText {
    return { header, lines: this.lines, complete: !this.full };
  }
}

/** 12,345 (toLocaleString loads ICU's number formats on first use: tens of ms). */
const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/**
 * Collects the text of one diff (one file's, or a turn's over many files) within a size limit. Every hunk
 * is counted; its text is kept only while the limit allows (or, when not even the first hunk fits, as
 * many of its lines as do, under a header counting those lines).
 */
export class DiffText {
  private readonly parts: string[] = [];
  private room: number;
  /** Where the current file's header starts in `parts`, its size, and whether a hunk of it is kept. */
  private fileStart = 0;
  private fileHeader = 0;
  private fileShown = false;
  private full = false;
  private files = 0;
  private hunks = 0;
  private shownHunks = 0;
  private added = 0;
  private removed = 0;

  constructor(private readonly maxChars: number = WEFT_DIFF_MAX_CHARS) {
    this.room = maxChars - MARKER_ROOM;
  }

  /** Whether text is still being kept (once a hunk did not fit, later ones are only counted). */
  get open(): boolean {
    return !this.full;
  }

  /** Characters of text there is still room for (0 once text is no longer kept). */
  get roomLeft(): number {
    return this.full ? 0 : Math.max(0, this.room);
  }

  /** Starts a file: its header lines are kept if they fit (and text is still kept). */
  file(headerLines: readonly string[]): void {
    this.files++;
    if (this.full) return;
    const text = headerLines.map((line) => `${line}\n`).join('');
    if (text.length > this.room) {
      this.full = true;
      return;
    }
    this.fileStart = this.parts.length;
    this.fileHeader = text.length;
    this.fileShown = false;
    this.parts.push(text);
    this.room -= text.length;
  }

  /** Counts a hunk whose text is not needed (text is no longer kept). */
  countHunk(added: number, removed: number): void {
    this.hunks++;
    this.added += added;
    this.removed += removed;
  }

  /**
   * Adds a hunk. `render` makes its text (called only while text is kept), and may stop once its lines
   * pass `budget` characters (the room left; see `HunkLines`); `partialHeader` makes the
   * header of a hunk covering `oldCount` old and `newCount` new lines from the same start, for a first
   * hunk too big to show whole.
   */
  hunk(
    added: number,
    removed: number,
    render: (budget: number) => HunkText,
    partialHeader: (oldCount: number, newCount: number) => string,
  ): void {
    this.countHunk(added, removed);
    if (this.full) return;
    const { header, lines, complete } = render(this.room);
    let size = header.length + 1;
    for (const line of lines) size += line.length + 1;
    if (complete && size <= this.room) {
      // One part per hunk: joining 10,000 hunks' lines one by one at the end took 15–25 ms in one stretch.
      this.parts.push(`${header}\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`);
      this.room -= size;
      this.shownHunks++;
      this.fileShown = true;
      return;
    }
    this.full = true;
    if (this.shownHunks > 0) {
      // A file none of whose hunks is shown is left out whole, header and all.
      if (!this.fileShown) {
        this.parts.length = this.fileStart;
        this.room += this.fileHeader;
      }
      return;
    }
    // Not even the first hunk fits: as many of its lines as do, so the diff is not empty.
    let shown = 0;
    let used = 0;
    const budget = this.room - 64;
    while (shown < lines.length && used + (lines[shown]?.length ?? 0) + 1 <= budget) {
      used += (lines[shown]?.length ?? 0) + 1;
      shown++;
    }
    if (shown === 0) return;
    let oldCount = 0;
    let newCount = 0;
    for (let k = 0; k < shown; k++) {
      const kind = lines[k]?.[0];
      if (kind === ' ' || kind === '-') oldCount++;
      if (kind === ' ' || kind === '+') newCount++;
    }
    this.parts.push(partialHeader(oldCount, newCount), '\n');
    for (let k = 0; k < shown; k++) this.parts.push(lines[k] ?? '', '\n');
    this.room -= used;
    this.shownHunks++;
  }

  /** The text, ending in the marker line when something was left out; `cut` present exactly then. */
  finish(): { diff: string; cut?: WeftDiffCut } {
    if (!this.full) return { diff: this.parts.join('') };
    const cut: WeftDiffCut = {
      files: this.files,
      hunks: this.hunks,
      shownHunks: this.shownHunks,
      added: this.added,
      removed: this.removed,
    };
    const what = `${count(this.hunks - this.shownHunks)} of ${count(this.hunks)} hunks`;
    const whole = `${count(this.files)} ${this.files === 1 ? 'file' : 'files'}, +${count(this.added)} −${count(this.removed)} lines`;
    const limit =
      this.maxChars % (1024 * 1024) === 0 ? `${this.maxChars / 1024 / 1024} MiB` : `${count(this.maxChars)} characters`;
    const marker = `~ Weft left out ${what}: diffs are cut at ${limit} (the whole diff: ${whole}).\n`;
    return { diff: this.parts.join('') + marker, cut };
  }
}
