// The line of text a thread search shows under a match: the first user or agent message of the rollout that
// holds every word of the search, cut around the first word. The index's full-text table is contentless
// (it answers which threads match, not where), so the words are found again in the rollout, read as a
// stream and only until the first matching message (or a byte budget), never as a whole file.
import { createReadStream } from 'node:fs';
import { codexItemType, codexMessageText } from './codex-thread-items';
import { AgentMessageEvent, UserMessageEvent } from './events';

/** How much of a rollout a snippet may read: big agent runs have their early messages searched. */
const SNIPPET_READ_BYTES = 8 * 1024 * 1024;
/** Characters kept before the first matching word, and in all. */
const BEFORE = 40;
const LENGTH = 140;
/** Rollouts read at once for one page of results. */
const PARALLEL = 4;

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The search's words, lower-cased, as the index cuts them. */
export function searchWords(term: string): string[] {
  return (term.toLowerCase().match(WORD) ?? []).filter((w) => w !== '');
}

/** `text` around the first of `words`, on one line, or null when it lacks one of them. */
export function snippetOf(text: string, words: readonly string[]): string | null {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  if (words.length === 0 || !words.every((w) => lower.includes(w))) return null;
  const first = Math.min(...words.map((w) => lower.indexOf(w)));
  const start = Math.max(0, first - BEFORE);
  const end = Math.min(flat.length, start + LENGTH);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

/** The text of a rollout line that records a user or agent message, else null. */
function messageText(line: string): string | null {
  if (!line.includes('"event_msg"')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const payload: unknown = Reflect.get(parsed, 'payload');
  if (typeof payload !== 'object' || payload === null) return null;
  const type: unknown = Reflect.get(payload, 'type');
  if (type === 'user_message') {
    const e = UserMessageEvent.safeParse(payload);
    return e.success ? e.data.message : null;
  }
  if (type === 'agent_message') {
    const e = AgentMessageEvent.safeParse(payload);
    return e.success ? e.data.message : null;
  }
  if (type === 'item_completed') {
    const kind = codexItemType(payload);
    return kind === 'UserMessage' || kind === 'AgentMessage' ? codexMessageText(payload) : null;
  }
  return null;
}

/** The snippet of one rollout; null when no message (within the budget) holds every word, or it cannot be read. */
export async function rolloutSnippet(path: string, words: readonly string[]): Promise<string | null> {
  if (words.length === 0) return null;
  const stream = createReadStream(path, { encoding: 'utf8', end: SNIPPET_READ_BYTES - 1 });
  // node:readline is loaded with the first search, not with the store.
  const lines = process.getBuiltinModule('node:readline').createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      // Cheap test first: most lines hold none of the words.
      if (!words.every((w) => line.toLowerCase().includes(w))) continue;
      const text = messageText(line);
      const snippet = text === null ? null : snippetOf(text, words);
      if (snippet !== null) return snippet;
    }
    return null;
  } catch {
    return null;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** Snippets by thread id for the threads of a page of search results (those without one are left out). */
export async function searchSnippets(
  threads: readonly { id: string; path: string | null }[],
  term: string,
): Promise<Record<string, string>> {
  const words = searchWords(term);
  const out: Record<string, string> = {};
  if (words.length === 0) return out;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < threads.length; i = next++) {
      const thread = threads[i];
      if (thread === undefined || thread.path === null) continue;
      const snippet = await rolloutSnippet(thread.path, words);
      if (snippet !== null) out[thread.id] = snippet;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, threads.length) }, worker));
  return out;
}
