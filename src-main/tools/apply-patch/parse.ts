// Parser for the Codex patch grammar (`*** Begin Patch` … `*** End Patch`). Error messages keep Codex's
// wording, because models are trained on it.

import type { Pacer } from '../../util/slicer';

/** One `@@` section of an `*** Update File` hunk. */
export interface Chunk {
  /** The `@@ <line>` headers in order (chained headers narrow the position); each is sought as a single
   * line after the previous one, before the old lines are sought. Empty for a bare `@@` or no header. */
  contexts: string[];
  /** Context and removed lines, in order: what must be found in the file. */
  oldLines: string[];
  /** Context and added lines, in order: what replaces the old lines. */
  newLines: string[];
  /** `*** End of File` closed the chunk: the old lines must be the last lines of the file. */
  isEndOfFile: boolean;
  /** 1-based line in the patch text of the chunk's first line (its first `@@`, or its first body line). */
  patchLine: number;
  /** The body's line kinds in order, one character per line: ' ' context, '-' removed, '+' added. Set by
   * the parser; when absent the engine treats the common prefix and suffix of old/new lines as context. */
  ops?: string;
}

export type FileHunk =
  | { kind: 'add'; path: string; contents: string; patchLine?: number }
  | { kind: 'delete'; path: string; patchLine?: number }
  | { kind: 'update'; path: string; movePath: string | null; chunks: Chunk[]; patchLine?: number };

export interface Patch {
  hunks: FileHunk[];
}

/** The patch text does not follow the grammar. `line` is 1-based in the text given to parsePatch. */
export class PatchParseError extends Error {
  override readonly name = 'PatchParseError';
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
  }
}

const BEGIN_PATCH = '*** Begin Patch';
const END_PATCH = '*** End Patch';
const ADD_FILE = '*** Add File: ';
const DELETE_FILE = '*** Delete File: ';
const UPDATE_FILE = '*** Update File: ';
const MOVE_TO = '*** Move to: ';
const END_OF_FILE = '*** End of File';

const FIRST_LINE_ERROR = "invalid patch: The first line of the patch must be '*** Begin Patch'";
const LAST_LINE_ERROR = "invalid patch: The last line of the patch must be '*** End Patch'";
const NO_LINES = 'Update hunk does not contain any lines';

/** `<<EOF`, `<<'EOF'`, `<<"EOF"` (any delimiter word): the first line of a heredoc-wrapped patch. */
const HEREDOC_OPENER = /^<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1$/;
/** A unified-diff range some models put after `@@`; what follows it (if anything) is the context line. */
const UNIFIED_RANGE = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

function invalidHunk(line: number, message: string): PatchParseError {
  return new PatchParseError(`invalid hunk at line ${line}, ${message}`, line);
}

/** Whether a (trimmed) line starts a file hunk or ends a chunk list. */
function isFileHeader(trimmed: string): boolean {
  return (
    trimmed.startsWith(ADD_FILE) ||
    trimmed.startsWith(DELETE_FILE) ||
    trimmed.startsWith(UPDATE_FILE) ||
    trimmed === END_PATCH
  );
}

/**
 * Parses a patch. Tolerates surrounding whitespace (the text and each marker line are trimmed), CRLF line
 * ends, blank lines between hunks, and a `<<'EOF'` … `EOF` heredoc wrapper. Throws PatchParseError.
 */
export function parsePatch(text: string): Patch {
  const steps = parseSteps(text);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** parsePatch, pausing between chunks when `pacer` says so: a patch of 10,000 hunks is tens of ms of work. */
export async function parsePatchPaced(text: string, pacer: Pacer): Promise<Patch> {
  const steps = parseSteps(text);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    if (pacer.due()) await pacer.pause();
  }
}

/** The parse, yielding every few chunks so that a caller may pause. */
function* parseSteps(text: string): Generator<void, Patch, void> {
  const lines = text.split('\n');
  if (text.includes('\r')) {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      if (line.endsWith('\r')) lines[i] = line.slice(0, -1);
    }
  }
  const at = (i: number): string => lines[i] ?? '';
  let first = 0;
  while (first < lines.length && at(first).trim() === '') first++;
  let last = lines.length - 1;
  while (last >= first && at(last).trim() === '') last--;

  const strictError = boundaryError(at(first), at(last), first <= last);
  if (strictError !== null) {
    const opener = HEREDOC_OPENER.exec(at(first).trim());
    const delimiter = opener?.[2];
    if (delimiter === undefined || last - first + 1 < 4 || !at(last).trim().endsWith(delimiter)) {
      throw new PatchParseError(strictError, null);
    }
    first++;
    last--;
    while (first < last && at(first).trim() === '') first++;
    while (last > first && at(last).trim() === '') last--;
    const innerError = boundaryError(at(first), at(last), first < last);
    if (innerError !== null) throw new PatchParseError(innerError, null);
  }
  return { hunks: yield* parseHunks(lines, first + 1, last - 1) };
}

function boundaryError(firstLine: string, lastLine: string, nonEmpty: boolean): string | null {
  if (!nonEmpty || firstLine.trim() !== BEGIN_PATCH) return FIRST_LINE_ERROR;
  if (lastLine.trim() !== END_PATCH) return LAST_LINE_ERROR;
  return null;
}

/** Parses the file hunks in lines[start..end] (inclusive, 0-based), yielding every 32 chunks. */
function* parseHunks(lines: readonly string[], start: number, end: number): Generator<void, FileHunk[], void> {
  const at = (i: number): string => lines[i] ?? '';
  const hunks: FileHunk[] = [];
  let i = start;
  while (i <= end) {
    const trimmed = at(i).trim();
    const headerLine = i + 1;
    if (trimmed === '') {
      i++;
    } else if (trimmed.startsWith(ADD_FILE)) {
      const path = trimmed.slice(ADD_FILE.length);
      i++;
      const body: string[] = [];
      while (i <= end && at(i).startsWith('+')) {
        body.push(at(i).slice(1));
        i++;
      }
      const contents = body.length > 0 ? body.join('\n') + '\n' : '';
      hunks.push({ kind: 'add', path, contents, patchLine: headerLine });
    } else if (trimmed.startsWith(DELETE_FILE)) {
      hunks.push({ kind: 'delete', path: trimmed.slice(DELETE_FILE.length), patchLine: headerLine });
      i++;
    } else if (trimmed.startsWith(UPDATE_FILE)) {
      const path = trimmed.slice(UPDATE_FILE.length);
      i++;
      let movePath: string | null = null;
      const moveLine = at(i).trim();
      if (i <= end && moveLine.startsWith(MOVE_TO)) {
        movePath = moveLine.slice(MOVE_TO.length);
        i++;
      }
      const chunks: Chunk[] = [];
      while (i <= end) {
        const line = at(i);
        if (line.trim() === '') {
          i++;
          continue;
        }
        if (line.startsWith('***') || isFileHeader(line.trim())) break;
        i = parseChunk(lines, i, end, chunks.length === 0, chunks);
        if ((chunks.length & 31) === 0) yield;
      }
      if (chunks.length === 0) throw invalidHunk(headerLine, `Update file hunk for path '${path}' is empty`);
      hunks.push({ kind: 'update', path, movePath, chunks, patchLine: headerLine });
    } else {
      throw invalidHunk(
        headerLine,
        `'${trimmed}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', ` +
          `'*** Delete File: {path}', '*** Update File: {path}'`,
      );
    }
  }
  return hunks;
}

/** `@@` → no context, `@@ <line>` → that context line; undefined when the line is not a chunk header. */
function chunkHeader(line: string): { context: string | null } | undefined {
  if (!line.startsWith('@@')) return undefined;
  if (line.trimEnd() === '@@') return { context: null };
  if (!line.startsWith('@@ ')) return undefined;
  const context = line.slice(3);
  const range = UNIFIED_RANGE.exec(context);
  if (range) {
    const rest = range[1] ?? '';
    return { context: rest.trim() === '' ? null : rest };
  }
  return { context };
}

/** Parses one chunk starting at lines[i], appends it to `out`, and returns the index after it. */
function parseChunk(
  lines: readonly string[],
  i: number,
  end: number,
  allowMissingHeader: boolean,
  out: Chunk[],
): number {
  const at = (k: number): string => lines[k] ?? '';
  const patchLine = i + 1;
  const contexts: string[] = [];
  let sawHeader = false;
  for (let header = chunkHeader(at(i)); i <= end && header; header = chunkHeader(at(i))) {
    sawHeader = true;
    if (header.context !== null) contexts.push(header.context);
    i++;
  }
  if (!sawHeader && !allowMissingHeader) {
    throw invalidHunk(i + 1, `Expected update hunk to start with a @@ context marker, got: '${at(i)}'`);
  }
  if (i > end) throw invalidHunk(i + 1, NO_LINES);

  const oldLines: string[] = [];
  const newLines: string[] = [];
  const ops: string[] = [];
  let isEndOfFile = false;
  for (; i <= end; i++) {
    const line = at(i);
    if (line.startsWith(END_OF_FILE) && line.trimEnd() === END_OF_FILE) {
      if (ops.length === 0) throw invalidHunk(i + 1, NO_LINES);
      isEndOfFile = true;
      i++;
      break;
    }
    const kind = line.charAt(0);
    const body = line.slice(1);
    if (kind === '') {
      oldLines.push('');
      newLines.push('');
      ops.push(' ');
    } else if (kind === ' ') {
      oldLines.push(body);
      newLines.push(body);
      ops.push(' ');
    } else if (kind === '-') {
      oldLines.push(body);
      ops.push('-');
    } else if (kind === '+') {
      newLines.push(body);
      ops.push('+');
    } else {
      if (ops.length === 0) {
        throw invalidHunk(
          i + 1,
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), ` +
            `'+' (added line), or '-' (removed line)`,
        );
      }
      break;
    }
  }
  out.push({ contexts, oldLines, newLines, isEndOfFile, patchLine, ops: ops.join('') });
  return i;
}
