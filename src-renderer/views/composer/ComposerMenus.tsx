// The composer's menu (`/` lists commands, slash-commands.ts; `@` finds files to attach as mentions,
// use-mention-menu.ts) and the `/status` panel, which shows what the thread has used.
import type { ReactNode } from 'react';
import type { Conversation } from '../../store/state';

export interface MenuEntry {
  key: string;
  name: string;
  detail: string;
  /** Positions in `name` to highlight (fuzzy matches). */
  indices?: readonly number[];
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
