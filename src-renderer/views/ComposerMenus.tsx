// The composer's menus: `/` lists commands, `@` finds files (`fuzzyFileSearch`) to attach as mentions,
// and `/status` shows what the thread has used. The composer owns the text; these decide what a menu
// shows for it and what choosing an entry does.
import type { ReactNode } from 'react';
import { isClientRequestMethod } from '../../src-preload/protocol';
import type { Conversation } from '../store/state';

export interface MenuEntry {
  key: string;
  name: string;
  detail: string;
  /** Positions in `name` to highlight (fuzzy matches). */
  indices?: readonly number[];
}

export interface SlashCommand {
  name: string;
  detail: string;
  /** Whether the server offers what the command needs (hidden otherwise). */
  available: boolean;
}

/** Every `/` command; those whose method the server lacks are hidden. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'review', detail: 'Review the uncommitted changes', available: isClientRequestMethod('review/start') },
  { name: 'compact', detail: 'Summarize the thread to free context', available: true },
  { name: 'undo', detail: 'Undo the last turn and put its files back', available: true },
  { name: 'fork', detail: 'Continue in a copy of this thread', available: true },
  { name: 'model', detail: 'Choose the model', available: true },
  { name: 'approvals', detail: 'Choose when the agent asks first', available: true },
  { name: 'init', detail: 'Write an AGENTS.md for this project', available: true },
  { name: 'status', detail: 'Tokens, context used and limits', available: true },
  { name: 'mcp', detail: 'MCP servers and their tools', available: isClientRequestMethod('mcpServerStatus/list') },
  { name: 'diff', detail: 'Show the changes of the last turn', available: true },
];

/** What the model is asked for by `/init`. */
export const INIT_PROMPT = [
  'Create a file named AGENTS.md at the root of this project: a short guide for coding agents working here.',
  'Look at the project first (its layout, build and test commands, languages, conventions, anything unusual),',
  'then write sections on the layout, how to build and run tests, the code style, and what to check before a change is done.',
  'Keep it under 300 lines, factual and specific to this project. If an AGENTS.md already exists, improve it rather than replace it.',
].join(' ');

/** Which menu the text asks for: `/word` at the very start, or an `@word` ending at the caret. */
export type MenuRequest = { kind: 'slash'; query: string } | { kind: 'mention'; query: string; start: number } | null;

export function menuFor(text: string, caret: number): MenuRequest {
  const slash = /^\/(\S*)$/.exec(text);
  if (slash) return { kind: 'slash', query: slash[1] ?? '' };
  const before = text.slice(0, caret);
  const at = /(^|\s)@([^\s@]*)$/.exec(before);
  if (at) return { kind: 'mention', query: at[2] ?? '', start: before.length - (at[2]?.length ?? 0) - 1 };
  return null;
}

export function slashEntries(query: string): MenuEntry[] {
  const q = query.toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.available && c.name.startsWith(q)).map((c) => ({
    key: c.name,
    name: `/${c.name}`,
    detail: c.detail,
  }));
}

/** The command a whole message names (`/compact`), if it is one the menu offers. */
export function slashCommandOf(text: string): string | null {
  const m = /^\/(\w+)\s*$/.exec(text.trim());
  const name = m?.[1];
  return name !== undefined && SLASH_COMMANDS.some((c) => c.available && c.name === name) ? name : null;
}

function highlighted(name: string, indices: readonly number[] | undefined): ReactNode {
  if (!indices || indices.length === 0) return name;
  const marks = new Set(indices);
  return [...name].map((ch, i) => (marks.has(i) ? <mark key={i}>{ch}</mark> : ch));
}

export function ComposerMenu({
  label,
  entries,
  selected,
  onChoose,
  onHover,
}: {
  label: string;
  entries: readonly MenuEntry[];
  selected: number;
  onChoose: (entry: MenuEntry) => void;
  onHover: (index: number) => void;
}) {
  return (
    <ul className="composer-menu" role="listbox" aria-label={label}>
      {entries.map((e, i) => (
        <li
          key={e.key}
          id={`composer-menu-${i}`}
          role="option"
          aria-selected={i === selected}
          onMouseEnter={() => onHover(i)}
          onMouseDown={(event) => {
            // Keep the focus in the textarea.
            event.preventDefault();
            onChoose(e);
          }}
        >
          <span className="menu-name">{highlighted(e.name, e.indices)}</span>
          <span className="menu-detail">{e.detail}</span>
        </li>
      ))}
    </ul>
  );
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `/status`: the thread's token use, how full the context is, and the limits that apply. Esc closes it. */
export function StatusPanel({
  conversation,
  model,
  approvals,
  sandbox,
  onClose,
}: {
  conversation: Conversation | undefined;
  model: string;
  approvals: string;
  sandbox: string;
  onClose: () => void;
}) {
  const usage = conversation?.tokenUsage ?? null;
  const window = usage?.modelContextWindow ?? null;
  const inContext = usage?.last.inputTokens ?? null;
  const context =
    usage === null
      ? 'nothing sent yet'
      : window === null || inContext === null
        ? `${count(inContext ?? 0)} tokens`
        : `${count(inContext)} of ${count(window)} tokens (${Math.round((inContext / window) * 100)}%)`;
  return (
    <section
      className="status-panel"
      aria-label="Status"
      onKeyDown={(event) => {
        // Esc closes it also when the focus is on its own button.
        if (event.key !== 'Escape') return;
        event.preventDefault();
        onClose();
      }}
    >
      <dl>
        <dt>Model</dt>
        <dd>{model}</dd>
        <dt>Tokens used</dt>
        <dd>
          {usage === null
            ? 'none yet'
            : `${count(usage.total.totalTokens)} (${count(usage.total.inputTokens)} in, ${count(usage.total.outputTokens)} out)`}
        </dd>
        <dt>Context used</dt>
        <dd>{context}</dd>
        <dt>Approvals</dt>
        <dd>{approvals}</dd>
        <dt>Sandbox</dt>
        <dd>{sandbox}</dd>
        <dt>Rate limits</dt>
        <dd>not reported by this provider</dd>
      </dl>
      <button type="button" className="btn" onClick={onClose}>
        Close
      </button>
    </section>
  );
}
