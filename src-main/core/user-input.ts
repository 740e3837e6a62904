import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { ContentItem, ResponseItem, UserInput } from '../../src-preload/protocol';
import { loadLocalImage } from '../tools/local-image';

/** The model-visible message for what a person typed and attached. */
export async function userInputToMessage(input: UserInput[], cwd: string): Promise<ResponseItem> {
  const content: ContentItem[] = [];
  for (const part of input) {
    switch (part.type) {
      case 'text':
        content.push({ type: 'input_text', text: part.text });
        break;
      case 'image':
        content.push({ type: 'input_image', image_url: part.url });
        break;
      case 'localImage': {
        const loaded = await loadLocalImage(part.path, cwd);
        content.push(
          loaded.ok
            ? { type: 'input_image', image_url: loaded.url }
            : { type: 'input_text', text: `[image not attached: ${loaded.error}]` },
        );
        break;
      }
      case 'mention': {
        content.push({ type: 'input_text', text: `@${part.name} (${part.path})` });
        const file = await mentionedFile(part.path, cwd);
        if (file !== null) content.push({ type: 'input_text', text: file });
        break;
      }
      case 'skill':
        content.push({ type: 'input_text', text: await skillText(part.name, part.path, cwd) });
        break;
    }
  }
  return { type: 'message', role: 'user', content };
}

/** A mentioned file's content is sent up to this size; the model can read the rest itself. */
export const MAX_MENTION_BYTES = 256 * 1024;

/**
 * A mentioned file (`@path` in the composer) as the model receives it: its path and content. Null for
 * mentions that are not local paths (`app://…`, `plugin://…`), which name tools rather than files.
 */
async function mentionedFile(path: string, cwd: string): Promise<string | null> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return null;
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  let data: Buffer;
  let size: number;
  try {
    const st = await stat(abs);
    if (!st.isFile()) return `[${abs} is not a file; its content is not attached]`;
    size = st.size;
    data = await readFile(abs);
  } catch {
    return `[${abs} could not be read; its content is not attached]`;
  }
  if (data.subarray(0, 8192).includes(0)) return `[${abs} is a binary file; its content is not attached]`;
  const cut = size > MAX_MENTION_BYTES;
  const body = data.subarray(0, MAX_MENTION_BYTES).toString('utf8');
  const note = cut ? `\n[…the file is ${size} bytes; only the first ${MAX_MENTION_BYTES} are shown]` : '';
  return `<file path="${abs}">\n${body}${body.endsWith('\n') ? '' : '\n'}</file>${note}`;
}

/** Larger SKILL.md files are cut: the model needs the instructions, not a book. */
export const MAX_SKILL_BYTES = 64 * 1024;

/** An invoked skill's instructions (its SKILL.md) as the model receives them. */
async function skillText(name: string, path: string, cwd: string): Promise<string> {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  let body: string;
  try {
    const data = await readFile(abs);
    body = data.subarray(0, MAX_SKILL_BYTES).toString('utf8');
  } catch {
    return `[skill ${name} not attached: cannot read ${abs}]`;
  }
  return `<skill>\n<name>${name}</name>\n<path>${abs}</path>\n${body}\n</skill>`;
}
