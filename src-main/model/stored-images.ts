// Images Weft keeps as files beside a thread's rollout (the browser's screenshots) are referred to in the
// model history (tool outputs) by `file:` URL, so the rollout's lines stay small; each request reads them back as data
// URLs just before it is sent. Only files named as Weft names them are read: a history cannot make a request
// carry an arbitrary local file.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { KnownResponseItem, type ContentItem, type ResponseItem } from '../../src-preload/protocol';

/** `…/<rollout>.files/browser-<id>.png` or `…/weft-screenshots-<thread>/browser-<id>.png`. */
const STORED_IMAGE = /\/(?:[^/]+\.files|weft-screenshots-[^/]+)\/browser-[A-Za-z0-9_-]+\.png$/;

/** Whether `url` is a file URL of an image Weft stored (see STORED_IMAGE). */
export function isStoredImageUrl(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  try {
    return STORED_IMAGE.test(fileURLToPath(url));
  } catch {
    return false;
  }
}

/** A saved thread's rollout and its files, in `sessions/YYYY/MM/DD/` or in `archived_sessions/`. */
const IN_SESSIONS = /^(.*)\/sessions\/\d{4}\/\d{2}\/\d{2}\/([^/]+\.files\/[^/]+)$/;
const IN_ARCHIVE = /^(.*)\/archived_sessions\/(rollout-(\d{4})-(\d{2})-(\d{2})T[^/]+\.files\/[^/]+)$/;

/**
 * Where a screenshot recorded at `path` may be now: there, or where archiving (or unarchiving) its thread
 * moved its rollout's folder (a fork's history names its source's files, which may have moved since).
 */
export function storedImagePlaces(path: string): string[] {
  const kept = IN_SESSIONS.exec(path);
  if (kept) return [path, `${kept[1] ?? ''}/archived_sessions/${kept[2] ?? ''}`];
  const archived = IN_ARCHIVE.exec(path);
  if (archived) {
    const [, home = '', rest = '', year = '', month = '', day = ''] = archived;
    return [path, `${home}/sessions/${year}/${month}/${day}/${rest}`];
  }
  return [path];
}

async function readStoredImage(path: string): Promise<Buffer | null> {
  for (const place of storedImagePlaces(path)) {
    const bytes = await readFile(place).catch(() => null);
    if (bytes !== null) return bytes;
  }
  return null;
}

async function inlineContent(content: readonly ContentItem[]): Promise<ContentItem[] | null> {
  let changed = false;
  const out: ContentItem[] = [];
  for (const part of content) {
    const url = part.type === 'input_image' && typeof part['image_url'] === 'string' ? part['image_url'] : null;
    if (url === null || !isStoredImageUrl(url)) {
      out.push(part);
      continue;
    }
    changed = true;
    const path = fileURLToPath(url);
    const bytes = await readStoredImage(path);
    if (bytes === null) out.push({ type: 'input_text', text: `(the screenshot ${path} is no longer on disk)` });
    else out.push({ ...part, image_url: `data:image/png;base64,${bytes.toString('base64')}` });
  }
  return changed ? out : null;
}

/** `input` with stored images read back as data URLs (the same array when there are none). */
export async function inlineStoredImages(input: ResponseItem[]): Promise<ResponseItem[]> {
  let out: ResponseItem[] | null = null;
  for (let i = 0; i < input.length; i++) {
    const next = await inlineItem(input[i]);
    if (next === null) continue;
    out ??= input.slice();
    out[i] = next;
  }
  return out ?? input;
}

/** A tool output with stored images inlined, else null (only tool outputs carry stored images). */
async function inlineItem(item: ResponseItem | undefined): Promise<ResponseItem | null> {
  // Most items are not tool outputs with content arrays: they are passed over without being parsed.
  if (item === undefined || !('output' in item) || !Array.isArray(item.output)) return null;
  const known = KnownResponseItem.safeParse(item);
  if (!known.success) return null;
  const value = known.data;
  if (value.type !== 'function_call_output' && value.type !== 'custom_tool_call_output') return null;
  if (typeof value.output === 'string') return null;
  const output = await inlineContent(value.output);
  return output === null ? null : { ...value, output };
}
