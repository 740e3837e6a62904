// What a thread is called for people, the same in the app, its notifications and `weft threads`.
import type { Thread } from './thread';

/** The title of a thread with neither a name nor a message. */
export const UNTITLED_THREAD = 'Untitled thread';

/** The first line of `text` with text in it, whitespace collapsed. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.replace(/\s+/g, ' ').trim();
}

/**
 * A thread's title: its name, else its preview (its first message), else `UNTITLED_THREAD`. Each is made
 * plain by `plain` (by default its first line, whitespace collapsed; the renderer also removes Markdown and
 * cuts it); a name with nothing left once made plain counts as none.
 */
export function threadTitle(
  thread: Pick<Thread, 'name' | 'preview'>,
  plain: (text: string) => string = firstLine,
): string {
  const name = thread.name === null ? '' : plain(thread.name);
  if (name !== '') return name;
  const preview = plain(thread.preview);
  return preview === '' ? UNTITLED_THREAD : preview;
}
