// A thread's preview: the start of its first user message that has text. One function for every place
// that computes it (the recorder as the message is written, the readers of a rollout, a live thread).
import type { ThreadItem } from '../../src-preload/protocol';

/** Longest preview kept. */
export const PREVIEW_MAX_CHARS = 1000;

/** The preview a user message's text gives; '' when it has no text (the next message is looked at then). */
export function threadPreview(message: string): string {
  return message.trim().slice(0, PREVIEW_MAX_CHARS);
}

/** The text of a user message item as the rollout records it: its text parts, one per line. */
export function userItemText(item: Extract<ThreadItem, { type: 'userMessage' }>): string {
  return item.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}
