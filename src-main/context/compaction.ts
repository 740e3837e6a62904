import { isKnownResponseItem, type ResponseItem } from '../../src-preload/protocol';
import type { ModelClient, ModelRequest, ModelUsage } from '../model/types';

/** Real user messages kept verbatim after a compaction, newest first, up to this many tokens. */
export const KEPT_USER_MESSAGE_TOKENS = 20_000;
/** The working memory is capped so that it stays small however long the thread gets. */
export const MAX_MEMORY_ENTRIES = 40;

export const SUMMARY_PREFIX =
  'This conversation was compacted: an earlier part was replaced by the handoff summary below, written by the model that was working on it. Continue the work from here; the summary and the working memory are accurate, and the user messages above are the most recent ones verbatim.';

export const COMPACTION_PROMPT = `Pause the task. The conversation is about to be compacted: everything above will be replaced by what you write now, so write a handoff for the engineer (another instance of you) who continues it. They will see only your handoff and the user's most recent messages.

Write these sections, concise but complete; use exact names, paths, commands and error messages:
## Goal
What the user wants, including constraints and preferences they stated.
## Done so far
What has been completed and verified.
## Decisions
Each decision made and why.
## Tried and failed
Approaches that did not work, and why, so they are not repeated.
## Files
Files read or changed, and what matters about each.
## Open questions
Anything unresolved or waiting on the user.
## Next steps
The exact next actions, in order.

Then, on a line of its own, write WORKING MEMORY and after it one JSON object with only NEW durable facts not already in the working memory shown earlier in the conversation (if any):
{"decisions": ["…"], "failed": ["…"], "files": ["…"]}`;

/** Facts that survive every compaction verbatim (Weft addition). */
export interface WorkingMemory {
  decisions: string[];
  failed: string[];
  files: string[];
}

export const EMPTY_MEMORY: WorkingMemory = { decisions: [], failed: [], files: [] };

export function approxTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** The token count at which a thread is compacted automatically, or null when it never is. */
export function autoCompactLimit(configLimit: number | null | undefined, contextWindow: number | null): number | null {
  const fromWindow = contextWindow ? Math.floor(contextWindow * 0.9) : null;
  if (configLimit && fromWindow) return Math.min(configLimit, fromWindow);
  return configLimit ?? fromWindow;
}

const MEMORY_OPEN = '<working_memory>';
const MEMORY_CLOSE = '</working_memory>';

function isRealUserMessage(item: ResponseItem): string | null {
  if (!isKnownResponseItem(item) || item.type !== 'message' || item.role !== 'user') return null;
  const text = item.content
    .map((c) => (c.type === 'input_text' && 'text' in c && typeof c.text === 'string' ? c.text : ''))
    .join('');
  const trimmed = text.trimStart();
  // Context blocks and earlier summaries are not the user's words.
  if (
    trimmed.startsWith('<environment_context>') ||
    trimmed.startsWith('# AGENTS.md instructions') ||
    trimmed.startsWith(SUMMARY_PREFIX) ||
    trimmed.startsWith(MEMORY_OPEN)
  )
    return null;
  return text === '' ? null : text;
}

/** The user's own messages, newest first, within the token budget (the oldest kept one may be cut). */
export function recentUserMessages(history: readonly ResponseItem[], budget = KEPT_USER_MESSAGE_TOKENS): string[] {
  const kept: string[] = [];
  let left = budget;
  for (let i = history.length - 1; i >= 0 && left > 0; i--) {
    const item = history[i];
    const text = item ? isRealUserMessage(item) : null;
    if (text === null) continue;
    const tokens = approxTokens(text);
    if (tokens <= left) {
      kept.unshift(text);
      left -= tokens;
    } else {
      kept.unshift(`${text.slice(0, left * 4)}\n[…cut to fit the compacted history]`);
      left = 0;
    }
  }
  return kept;
}

/** Splits the model's compaction answer into the summary and the new memory entries. */
export function parseCompactionAnswer(answer: string): { summary: string; memory: WorkingMemory } {
  const at = answer.lastIndexOf('WORKING MEMORY');
  if (at < 0) return { summary: answer.trim(), memory: EMPTY_MEMORY };
  const summary = answer.slice(0, at).trim();
  const json = answer.slice(at + 'WORKING MEMORY'.length);
  const start = json.indexOf('{');
  const end = json.lastIndexOf('}');
  if (start < 0 || end <= start) return { summary, memory: EMPTY_MEMORY };
  try {
    const raw = JSON.parse(json.slice(start, end + 1)) as Record<string, unknown>;
    const list = (v: unknown): string[] =>
      Array.isArray(v)
        ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim())
        : [];
    return {
      summary,
      memory: { decisions: list(raw['decisions']), failed: list(raw['failed']), files: list(raw['files']) },
    };
  } catch {
    return { summary, memory: EMPTY_MEMORY };
  }
}

/** Old entries are kept verbatim; new ones are added unless already there; the oldest go past the cap. */
export function mergeMemory(old: WorkingMemory, added: WorkingMemory): WorkingMemory {
  const merge = (a: string[], b: string[]): string[] => {
    const out = [...a];
    for (const x of b) if (!out.includes(x)) out.push(x);
    return out.slice(-MAX_MEMORY_ENTRIES);
  };
  return {
    decisions: merge(old.decisions, added.decisions),
    failed: merge(old.failed, added.failed),
    files: merge(old.files, added.files),
  };
}

export function renderMemory(memory: WorkingMemory): string | null {
  if (memory.decisions.length + memory.failed.length + memory.files.length === 0) return null;
  const section = (title: string, entries: string[]): string =>
    entries.length ? `${title}:\n${entries.map((e) => `- ${e}`).join('\n')}` : '';
  const body = [
    section('Decisions', memory.decisions),
    section('Tried and failed', memory.failed),
    section('Key files', memory.files),
  ]
    .filter(Boolean)
    .join('\n');
  return `${MEMORY_OPEN}\nDurable facts of this thread, kept verbatim across compactions:\n${body}\n${MEMORY_CLOSE}`;
}

/** Reads the working memory back out of a compacted history (after a resume). */
export function memoryFromHistory(history: readonly ResponseItem[]): WorkingMemory {
  for (const item of history) {
    if (!isKnownResponseItem(item) || item.type !== 'message') continue;
    for (const c of item.content) {
      const text = 'text' in c && typeof c.text === 'string' ? c.text : '';
      if (!text.startsWith(MEMORY_OPEN)) continue;
      const memory: WorkingMemory = { decisions: [], failed: [], files: [] };
      let current: string[] | null = null;
      for (const line of text.split('\n')) {
        if (line === 'Decisions:') current = memory.decisions;
        else if (line === 'Tried and failed:') current = memory.failed;
        else if (line === 'Key files:') current = memory.files;
        else if (line.startsWith('- ') && current) current.push(line.slice(2));
      }
      return memory;
    }
  }
  return EMPTY_MEMORY;
}

/** The history that replaces everything: recent user messages, the summary, the working memory. */
export function replacementHistory(
  history: readonly ResponseItem[],
  summary: string,
  memory: WorkingMemory,
): ResponseItem[] {
  const items: ResponseItem[] = recentUserMessages(history).map((text) => ({
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text }],
  }));
  items.push({
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: `${SUMMARY_PREFIX}\n\n${summary}` }],
  });
  const rendered = renderMemory(memory);
  if (rendered) items.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: rendered }] });
  return items;
}

/**
 * Asks the model for the handoff summary, and says what the request used (it is paid for like any other).
 * On a context-window error the oldest items are dropped and it tries again, as Codex does.
 */
export async function summarize(
  client: ModelClient,
  base: Omit<ModelRequest, 'input' | 'tools'>,
  history: readonly ResponseItem[],
  signal: AbortSignal,
  isTooLong: (e: unknown) => boolean,
): Promise<{ text: string; usage: ModelUsage | null }> {
  let input = [...history];
  for (;;) {
    try {
      let text = '';
      let usage: ModelUsage | null = null;
      for await (const ev of client.stream(
        {
          ...base,
          tools: [],
          input: [
            ...input,
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: COMPACTION_PROMPT }] },
          ],
        },
        signal,
      )) {
        if (ev.type === 'completed') usage = ev.usage;
        if (
          ev.type === 'outputItemDone' &&
          isKnownResponseItem(ev.item) &&
          ev.item.type === 'message' &&
          ev.item.role === 'assistant'
        ) {
          text = ev.item.content.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : '')).join('');
        }
      }
      return { text, usage };
    } catch (error) {
      if (!isTooLong(error) || input.length <= 1) throw error;
      input = input.slice(Math.max(1, Math.floor(input.length / 10)));
    }
  }
}
