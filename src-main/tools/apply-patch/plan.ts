// Planning a patch: read every file it touches and place every hunk, writing nothing. A patch that cannot be
// applied in full fails here, with every file left as it was.

import { isAscii, isUtf8 } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import { readFile as readFileAsync } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Slicer, type Pacer } from '../../util/slicer';
import {
  coverUnterminatedEnd,
  editsFromHunks,
  groupChanges,
  groupChangesPaced,
  resolveChunks,
  withNewStarts,
} from './hunks';
import type { Change, PlannedHunk } from './hunks';

export type { PlannedHunk };
import type { FileHunk, Patch } from './parse';
import { applyEdits, arrayLines, editedBytes, splitText, splitTextPaced } from './text';
import type { Eol, TextLines } from './text';

/** Size and modification time of a file as planning saw it. */
export interface FileStamp {
  mtimeMs: number;
  size: number;
}

export interface PlannedFile {
  /** Absolute path of the file the hunk names. */
  path: string;
  /** The path as written in the patch. */
  displayPath: string;
  kind: 'add' | 'delete' | 'update';
  /** Absolute destination of `*** Move to:`; null when the file stays where it is. */
  movePath: string | null;
  /** The destination as written in the patch; null when the file stays where it is. */
  displayMovePath: string | null;
  /** The file's text before the patch; null when there was none (a new file) or it is not UTF-8 text. */
  oldContent: string | null;
  /** The file's text after the patch; null for a delete. */
  newContent: string | null;
  /** Line end used for lines the patch writes. */
  eol: Eol;
  /** Permission bits to give the written file; null for the default of a new file. */
  mode: number | null;
  /** For an add or a delete, the single hunk (index 0) when the file has any lines. */
  hunks: PlannedHunk[];
  /** What was on disk at `path` when planned ('absent': nothing), checked again before writing so that a
   * file changed in the meantime is not overwritten; undefined when planning used a custom reader. */
  observed?: FileStamp | 'absent';
}

export interface PatchPlan {
  files: PlannedFile[];
}

export interface PlanOptions {
  /** Directory that relative paths in the patch are resolved against. */
  cwd: string;
  /** Reads a file as UTF-8 text; rejects (ENOENT when missing) otherwise. Default: the local disk. */
  readFile?: (absPath: string) => Promise<string>;
  /**
   * Paces the work (finding lines, placing hunks) so it gives the event loop back every few ms: a patch of
   * 10,000 hunks on a 50 MB file is half a second of work. Default: a fresh Slicer.
   */
  pacer?: Pacer;
  /** The process serves nothing else (a one-shot command): big files are read without the thread pool. */
  blocking?: boolean;
}

/** One reason a patch cannot be applied. */
export interface PatchFailure {
  /** The file as written in the patch. */
  path: string;
  /** 1-based number of the failing `@@` chunk within the file's section; null for a file-level problem. */
  hunk: number | null;
  /** 1-based line in the patch where the failing section or chunk starts; null if unknown. */
  patchLine: number | null;
  /** Full explanation (Codex's wording first). */
  message: string;
}

const NOTHING_WRITTEN =
  'No files were changed: apply_patch checks every hunk before writing anything. Fix the problem above and send the whole patch again.';

/** The patch cannot be applied as a whole; nothing was written. The message lists every failure. */
export class PatchApplyError extends Error {
  override readonly name = 'PatchApplyError';
  constructor(readonly failures: PatchFailure[]) {
    super(`${failures.map((f) => f.message).join('\n\n')}\n\n${NOTHING_WRITTEN}`);
  }
}

/**
 * A text file's content: its bytes when they are ASCII (each byte is one character, and no string of the
 * whole file is made unless asked for: see TextLines), else the decoded text.
 */
type FileText = { ascii: Buffer; text: null } | { ascii: null; text: string };

const textOf = (content: FileText): string => content.text ?? content.ascii.toString('latin1');

type Loaded =
  | { state: 'absent' }
  | {
      state: 'file';
      /** Null when the file is not UTF-8 text. */
      content: FileText | null;
      mode: number | null;
      observed: FileStamp | undefined;
    }
  | { state: 'unreadable'; reason: string };

export function errnoCode(error: unknown): string | undefined {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return undefined;
}

/** A file-system error in words, for messages like "Failed to read file to update x: <this>". */
export function describeFsError(error: unknown): string {
  switch (errnoCode(error)) {
    case 'ENOENT':
      return 'the file does not exist';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return 'a parent of it is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** Bytes of a non-ASCII file decoded at once: beyond this, a line-aligned piece at a time between pauses. */
const DECODE_PIECE = 4 * 1024 * 1024;

/**
 * A file's bytes as text; null when they are not UTF-8. ASCII (most source files) stays as its bytes: they
 * are the text byte for byte, planning reads lines from them, and the edited file is written from views
 * of them. Other UTF-8 is decoded a few MB at a time, each piece ending after a '\n' (never inside a
 * character): Node's UTF-8 decoder takes tens of milliseconds on a file of a few MB.
 */
async function decodeText(bytes: Buffer, pacer: Pacer): Promise<FileText | null> {
  if (isAscii(bytes)) return { ascii: bytes, text: null };
  if (!isUtf8(bytes)) return null;
  const pieces: string[] = [];
  for (let at = 0; at < bytes.length;) {
    const newline = at + DECODE_PIECE >= bytes.length ? -1 : bytes.indexOf(10, at + DECODE_PIECE);
    const end = newline < 0 ? bytes.length : newline + 1;
    pieces.push(bytes.toString('utf8', at, end));
    at = end;
    await pacer.pace();
  }
  return { ascii: null, text: pieces.join('') };
}

/**
 * The new content of planned updates as bytes to write (see editedBytes). Kept beside the plan rather than
 * in it: a copy of a planned file (withDeclinedHunks) has other content and must not inherit them.
 */
const newBytesOf = new WeakMap<PlannedFile, () => Buffer[] | null>();

/** A planned file's new content as UTF-8 bytes to write in order, when planning can give them without building the text. */
export function plannedNewBytes(file: PlannedFile): Buffer[] | null {
  return newBytesOf.get(file)?.() ?? null;
}

/** The bytes planning read, for an update whose new content plannedNewBytes gives. */
const oldBytesOf = new WeakMap<PlannedFile, Buffer>();

export function plannedOldBytes(file: PlannedFile): Buffer | null {
  return oldBytesOf.get(file) ?? null;
}

/** The lines planning found in an update's old text, for diffing without building that text. */
const oldLinesOf = new WeakMap<PlannedFile, TextLines>();

/** A planned file's old text as lines (empty when it had none). */
export function plannedOldLines(file: PlannedFile): TextLines {
  return oldLinesOf.get(file) ?? splitText(file.oldContent ?? '');
}

/**
 * Files up to this size are read synchronously: for many small ones (500 added files) the thread-pool round
 * trips of async reads would cost more than the reads. Bigger ones are read asynchronously, so a patch to a
 * large file never holds the event loop (in the desktop app, the main process) while the disk reads it.
 */
const SYNC_READ_MAX_BYTES = 256 * 1024;

async function loadFile(
  absPath: string,
  { readFile, blocking }: Pick<PlanOptions, 'readFile' | 'blocking'>,
  pacer: Pacer,
): Promise<Loaded> {
  if (readFile) {
    try {
      return {
        state: 'file',
        content: { ascii: null, text: await readFile(absPath) },
        mode: null,
        observed: undefined,
      };
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent' };
      return { state: 'unreadable', reason: describeFsError(error) };
    }
  }
  try {
    const stats = statSync(absPath, { throwIfNoEntry: false });
    if (stats === undefined) return { state: 'absent' };
    if (stats.isDirectory()) return { state: 'unreadable', reason: 'it is a directory' };
    if (!stats.isFile()) return { state: 'unreadable', reason: 'it is not a regular file' };
    const bytes =
      blocking === true || stats.size <= SYNC_READ_MAX_BYTES ? readFileSync(absPath) : await readFileAsync(absPath);
    return {
      state: 'file',
      content: await decodeText(bytes, pacer),
      mode: stats.mode & 0o7777,
      observed: { mtimeMs: stats.mtimeMs, size: stats.size },
    };
  } catch (error) {
    if (errnoCode(error) === 'ENOTDIR') return { state: 'absent' };
    return { state: 'unreadable', reason: describeFsError(error) };
  }
}

function at(patchLine: number | undefined): string {
  return patchLine === undefined ? '' : ` (patch line ${patchLine})`;
}

/** The paths (as written) a file hunk changes. */
function writtenPaths(hunk: FileHunk): string[] {
  return hunk.kind === 'update' && hunk.movePath !== null ? [hunk.path, hunk.movePath] : [hunk.path];
}

function duplicateFailures(patch: Patch, cwd: string): PatchFailure[] {
  const firstSeen = new Map<string, FileHunk>();
  const failures: PatchFailure[] = [];
  for (const hunk of patch.hunks) {
    for (const target of new Set(writtenPaths(hunk).map((p) => resolve(cwd, p)))) {
      const earlier = firstSeen.get(target);
      if (earlier === undefined) {
        firstSeen.set(target, hunk);
        continue;
      }
      const lines = [earlier.patchLine, hunk.patchLine].filter((l) => l !== undefined);
      const where = lines.length === 2 ? ` (patch lines ${lines.join(' and ')})` : '';
      const names = new Set(
        [...writtenPaths(earlier), ...writtenPaths(hunk)].filter((p) => resolve(cwd, p) === target),
      );
      const what = names.size === 1 ? earlier.path : `${target} (as ${[...names].map((n) => `'${n}'`).join(' and ')})`;
      failures.push({
        path: hunk.path,
        hunk: null,
        patchLine: hunk.patchLine ?? null,
        message: `The patch changes ${what} in two sections${where}. Put all changes to one file in a single section.`,
      });
    }
  }
  return failures;
}

/**
 * Resolves paths against opts.cwd (absolute paths are kept), reads every file and places every hunk.
 * Throws PatchApplyError, naming each file and hunk that cannot be applied; writes nothing.
 */
export async function planPatch(patch: Patch, opts: PlanOptions): Promise<PatchPlan> {
  if (patch.hunks.length === 0)
    throw new PatchApplyError([{ path: '', hunk: null, patchLine: null, message: 'No files were modified.' }]);
  const failures = duplicateFailures(patch, opts.cwd);
  if (failures.length > 0) throw new PatchApplyError(failures);
  const files: PlannedFile[] = [];
  const pacer = opts.pacer ?? new Slicer();
  for (const hunk of patch.hunks) {
    await pacer.pace();
    const planned = await planFile(hunk, opts, pacer);
    if ('message' in planned) failures.push(planned);
    else files.push(planned);
  }
  if (failures.length > 0) throw new PatchApplyError(failures);
  return { files };
}

function fileFailure(hunk: FileHunk, message: string): PatchFailure {
  return { path: hunk.path, hunk: null, patchLine: hunk.patchLine ?? null, message: message + at(hunk.patchLine) };
}

async function planFile(hunk: FileHunk, opts: PlanOptions, pacer: Pacer): Promise<PlannedFile | PatchFailure> {
  const path = resolve(opts.cwd, hunk.path);
  const loaded = await loadFile(path, opts, pacer);
  const base = { path, displayPath: hunk.path, movePath: null, displayMovePath: null };
  // An add's or a delete's one hunk, once made.
  let wholeHunks: PlannedHunk[] | undefined;
  switch (hunk.kind) {
    case 'add': {
      if (loaded.state === 'unreadable')
        return fileFailure(hunk, `Failed to write file ${hunk.path}: ${loaded.reason}`);
      const existing = loaded.state === 'file' ? loaded : null;
      const oldText = existing?.content ? textOf(existing.content) : null;
      const contents = hunk.contents;
      return {
        ...base,
        kind: 'add',
        oldContent: oldText,
        newContent: contents,
        eol: '\n',
        mode: existing?.mode ?? null,
        // Made only when someone looks (a review, a diff): `weft apply-patch` of 500 new files never does.
        get hunks(): PlannedHunk[] {
          wholeHunks ??= wholeFileHunks(
            oldText !== null ? splitText(oldText).lines() : [],
            contents === '' ? [] : contents.slice(0, -1).split('\n'),
          );
          return wholeHunks;
        },
        observed: existing ? existing.observed : 'absent',
      };
    }
    case 'delete': {
      if (loaded.state === 'absent')
        return fileFailure(hunk, `Failed to delete file ${hunk.path}: the file does not exist`);
      if (loaded.state === 'unreadable')
        return fileFailure(hunk, `Failed to delete file ${hunk.path}: ${loaded.reason}`);
      const oldText = loaded.content === null ? null : textOf(loaded.content);
      const split = oldText === null ? null : splitText(oldText);
      return {
        ...base,
        kind: 'delete',
        oldContent: oldText,
        newContent: null,
        eol: split?.eol ?? '\n',
        mode: loaded.mode,
        get hunks(): PlannedHunk[] {
          wholeHunks ??= split ? wholeFileHunks(split.lines(), []) : [];
          return wholeHunks;
        },
        observed: loaded.observed,
      };
    }
    case 'update': {
      const cannotRead = `Failed to read file to update ${hunk.path}`;
      if (loaded.state === 'absent') return fileFailure(hunk, `${cannotRead}: the file does not exist`);
      if (loaded.state === 'unreadable') return fileFailure(hunk, `${cannotRead}: ${loaded.reason}`);
      const content = loaded.content;
      if (content === null)
        return fileFailure(hunk, `${cannotRead}: it is not UTF-8 text, and apply_patch edits only text files`);
      await pacer.pace();
      const split = await splitTextPaced(content.ascii ?? content.text, pacer);
      const resolution = await resolveChunks(split, hunk.chunks, hunk.path, pacer);
      if (!resolution.ok) {
        const chunk = hunk.chunks[resolution.chunk];
        const where = `hunk ${resolution.chunk + 1} of ${hunk.chunks.length} for ${hunk.path}`;
        return {
          path: hunk.path,
          hunk: resolution.chunk + 1,
          patchLine: chunk?.patchLine ?? null,
          message: `${resolution.reason}\n(${where}${chunk ? `, patch line ${chunk.patchLine}` : ''})`,
        };
      }
      if (!split.finalNewline) coverUnterminatedEnd(split, resolution.changes);
      const hunks = await groupChangesPaced(split, resolution.changes, pacer);
      await pacer.pace();
      let movePath = hunk.movePath === null ? null : resolve(opts.cwd, hunk.movePath);
      if (movePath === path) movePath = null;
      if (movePath !== null && !opts.readFile) {
        const destination = await loadFile(movePath, { blocking: opts.blocking }, pacer);
        if (destination.state === 'unreadable') {
          return fileFailure(hunk, `Failed to write file ${hunk.movePath ?? ''}: ${destination.reason}`);
        }
      }
      // The new text is built only when asked for: writing takes editedBytes, views of the file's bytes.
      const edits = editsFromHunks(hunks);
      let newContent: string | undefined;
      let oldContent: string | undefined;
      const planned: PlannedFile = {
        ...base,
        kind: 'update',
        movePath,
        displayMovePath: movePath === null ? null : hunk.movePath,
        // Both texts are built only when asked for (a whole-file string of a big file is a long copy).
        get oldContent(): string {
          oldContent ??= textOf(content);
          return oldContent;
        },
        get newContent(): string {
          newContent ??= applyEdits(split, edits);
          return newContent;
        },
        eol: split.eol,
        mode: loaded.mode,
        hunks,
        observed: loaded.observed,
      };
      newBytesOf.set(planned, () => editedBytes(split, edits));
      oldLinesOf.set(planned, split);
      if (split.bytes !== null) oldBytesOf.set(planned, split.bytes);
      return planned;
    }
  }
}

/** The one hunk of an add or delete: every old line replaced by every new line (none if both are empty). */
function wholeFileHunks(oldLines: readonly string[], newLines: string[]): PlannedHunk[] {
  if (oldLines.length === 0 && newLines.length === 0) return [];
  const change: Change = { start: 0, oldLines: [...oldLines], newLines, chunk: 0 };
  return groupChanges(arrayLines(oldLines), [change]);
}

/**
 * The plan with the given hunks left out (per-hunk review). `path` may be the absolute or the as-written
 * path (of the file or its move destination); `hunk` is PlannedHunk.index, and 0 for an add or delete.
 * A file all of whose hunks are declined leaves the plan.
 */
export function withDeclinedHunks(plan: PatchPlan, declined: ReadonlyArray<{ path: string; hunk: number }>): PatchPlan {
  const files: PlannedFile[] = [];
  for (const file of plan.files) {
    const names = [file.path, file.displayPath, file.movePath, file.displayMovePath];
    const indexes = new Set(declined.filter((d) => names.includes(d.path)).map((d) => d.hunk));
    if (indexes.size === 0) {
      files.push(file);
    } else if (file.kind !== 'update') {
      if (!indexes.has(0)) files.push(file);
    } else {
      const kept = file.hunks.filter((h) => !indexes.has(h.index));
      if (kept.length === file.hunks.length) {
        files.push(file);
      } else if (kept.length > 0) {
        const hunks = withNewStarts(kept);
        const newContent = applyEdits(plannedOldLines(file), editsFromHunks(hunks));
        files.push({ ...file, hunks, newContent });
      }
    }
  }
  return { files };
}
