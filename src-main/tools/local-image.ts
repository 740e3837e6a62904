// Local images as data URLs: what view_image and attached images send the model.

import { readFile, stat } from 'node:fs/promises';
import { extname, isAbsolute, resolve } from 'node:path';
import { MAX_IMAGE_BYTES } from '../../src-preload/protocol';

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** Reads a local image as a data URL, or explains why it cannot be used. */
export async function loadLocalImage(
  path: string,
  cwd: string,
): Promise<{ ok: true; url: string } | { ok: false; error: string }> {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  const mime = IMAGE_TYPES[extname(abs).toLowerCase()];
  if (!mime) return { ok: false, error: `${abs} is not an image Weft can send (supported: png, jpeg, gif, webp)` };
  let size: number;
  try {
    const st = await stat(abs);
    if (!st.isFile()) return { ok: false, error: `${abs} is not a file` };
    size = st.size;
  } catch {
    return { ok: false, error: `image not found: ${abs}` };
  }
  if (size > MAX_IMAGE_BYTES)
    return {
      ok: false,
      error: `${abs} is ${(size / 1048576).toFixed(1)} MiB; images are limited to ${MAX_IMAGE_BYTES / 1048576} MiB`,
    };
  const data = await readFile(abs);
  return { ok: true, url: `data:${mime};base64,${data.toString('base64')}` };
}
