// AGENTS.md discovery: the user's global instructions from the Weft home, then the project's docs from
// the project root down to the cwd, merged into the text of one user message.
import { open, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ResponseItem } from '../../src-preload/protocol';
import { hasMarker } from '../util/markers';

export const DEFAULT_PROJECT_DOC_MAX_BYTES = 32_768;
export const DEFAULT_PROJECT_ROOT_MARKERS: readonly string[] = ['.git'];
export const PROJECT_DOC_SEPARATOR = '\n\n--- project-doc ---\n\n';

const GLOBAL_DOC_NAMES = ['AGENTS.override.md', 'AGENTS.md'];
const PROJECT_DOC_NAMES = ['AGENTS.override.md', 'AGENTS.md'];

export interface DiscoverProjectDocsOptions {
  cwd: string;
  weftHome: string;
  /** Cap on the project docs' bytes together (the `\n\n` between them not counted); 0 turns them off. */
  maxBytes?: number;
  /** Names tried in each folder after AGENTS.override.md and AGENTS.md (config `project_doc_fallback_filenames`). */
  fallbackFilenames?: readonly string[];
  projectRootMarkers?: readonly string[];
}

export interface ProjectDocs {
  /** Global + project docs, or null when there are none. */
  text: string | null;
  /** Absolute paths of the files whose text is included, in order. */
  sources: string[];
  /** For the user: files that were cut, left out or unreadable. */
  warnings: string[];
}

export async function discoverProjectDocs(options: DiscoverProjectDocsOptions): Promise<ProjectDocs> {
  const maxBytes = options.maxBytes ?? DEFAULT_PROJECT_DOC_MAX_BYTES;
  const sources: string[] = [];
  const warnings: string[] = [];
  const parts: string[] = [];

  const global = await readGlobalDoc(options.weftHome, warnings);
  if (global !== null) {
    parts.push(global.text);
    sources.push(global.path);
  }

  if (maxBytes > 0) {
    const names = [...PROJECT_DOC_NAMES, ...(options.fallbackFilenames ?? [])];
    const docs: string[] = [];
    let remaining = maxBytes;
    for (const dir of await projectDirs(options.cwd, options.projectRootMarkers)) {
      const path = await firstFile(dir, names);
      if (path === null) continue;
      if (remaining === 0) {
        warnings.push(
          `${path} was left out: the project docs already fill the ${maxBytes}-byte limit (project_doc_max_bytes).`,
        );
        continue;
      }
      const read = await readPrefix(path, remaining, warnings);
      if (read === null || read.text.trim().length === 0) continue;
      if (read.size > read.bytes) {
        warnings.push(
          `${path} was cut by ${read.size - read.bytes} of its ${read.size} bytes: the project docs are limited to ${maxBytes} bytes in total (project_doc_max_bytes).`,
        );
      }
      // A cut file fills the budget even when a few bytes are left over from a split character.
      remaining = read.size > read.bytes ? 0 : remaining - read.bytes;
      docs.push(read.text);
      sources.push(path);
    }
    if (docs.length > 0) parts.push(docs.join('\n\n'));
  }

  return { text: parts.length > 0 ? parts.join(PROJECT_DOC_SEPARATOR) : null, sources, warnings };
}

/** The user message that carries the docs to the model. */
export function renderProjectDocsMessage(cwd: string, text: string): ResponseItem {
  return {
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: `# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\n${text}\n</INSTRUCTIONS>` },
    ],
  };
}

/**
 * The folders from the project root down to `cwd`, root first. The root is the nearest folder at or
 * above `cwd` holding any of `markers` (a folder or a file: a worktree's `.git` is a file). No marker
 * found, or no markers given, means `cwd` alone.
 */
export async function projectDirs(
  cwd: string,
  markers: readonly string[] = DEFAULT_PROJECT_ROOT_MARKERS,
): Promise<string[]> {
  const start = resolve(cwd);
  if (markers.length === 0) return [start];
  const chain: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    chain.push(dir);
    if (await hasAnyMarker(dir, markers)) return chain.reverse();
    if (dirname(dir) === dir) return [start];
  }
}

async function hasAnyMarker(dir: string, markers: readonly string[]): Promise<boolean> {
  for (const marker of markers) if (await hasMarker(dir, marker)) return true;
  return false;
}

/** AGENTS.override.md, else AGENTS.md, skipping empty ones. */
async function readGlobalDoc(home: string, warnings: string[]): Promise<{ path: string; text: string } | null> {
  for (const name of GLOBAL_DOC_NAMES) {
    const path = join(home, name);
    if (!(await isFile(path))) continue;
    const read = await readPrefix(path, Number.POSITIVE_INFINITY, warnings);
    const text = read?.text.trim() ?? '';
    if (text.length > 0) return { path, text };
  }
  return null;
}

async function firstFile(dir: string, names: readonly string[]): Promise<string | null> {
  for (const name of names) {
    const path = join(dir, name);
    if (await isFile(path)) return path;
  }
  return null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Up to `limit` bytes of the file, cut back to a whole UTF-8 character; `size` is the whole file's. */
async function readPrefix(
  path: string,
  limit: number,
  warnings: string[],
): Promise<{ text: string; bytes: number; size: number } | null> {
  try {
    const handle = await open(path, 'r');
    try {
      const size = (await handle.stat()).size;
      const want = Math.min(size, limit);
      const buffer = Buffer.alloc(want);
      let filled = 0;
      while (filled < want) {
        const { bytesRead } = await handle.read(buffer, filled, want - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      const bytes = utf8Boundary(buffer, filled, filled < size);
      return { text: buffer.subarray(0, bytes).toString('utf8'), bytes, size };
    } finally {
      await handle.close();
    }
  } catch (error) {
    warnings.push(
      `could not read ${path}: ${error instanceof Error ? error.message : String(error)}; it was left out.`,
    );
    return null;
  }
}

/** The largest length ≤ `end` that does not split a character, when the text continues past `end`. */
function utf8Boundary(buffer: Buffer, end: number, truncated: boolean): number {
  if (!truncated || end === 0) return end;
  // Find the lead byte of the last character (skipping up to 3 continuation bytes, 10xxxxxx).
  let lead = end - 1;
  while (lead > 0 && end - lead < 4 && ((buffer[lead] ?? 0) & 0xc0) === 0x80) lead--;
  const byte = buffer[lead] ?? 0;
  const length =
    byte < 0x80 ? 1 : (byte & 0xe0) === 0xc0 ? 2 : (byte & 0xf0) === 0xe0 ? 3 : (byte & 0xf8) === 0xf0 ? 4 : 1;
  return lead + length <= end ? end : lead;
}
