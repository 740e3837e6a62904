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
    try {
      out.push({ ...part, image_url: `data:image/png;base64,${(await readFile(path)).toString('base64')}` });
    } catch {
      out.push({ type: 'input_text', text: `(the screenshot ${path} is no longer on disk)` });
    }
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
