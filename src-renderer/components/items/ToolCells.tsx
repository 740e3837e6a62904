// Commands, MCP tool calls, web searches, image views and compactions.
import type {
  CommandExecutionItem,
  ContextCompactionItem,
  HookPromptItem,
  ImageViewItem,
  McpToolCallItem,
  WebSearchItem,
} from '../../../src-preload/protocol';
import { lazy, Suspense, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { outputText } from '../../store/output-tail';
import { OUTPUT_TAIL_CHARS } from '../../store/state';
import type { McpProgress, OutputTail } from '../../store/state';
import { assertNever } from '../../../src-preload/protocol';
import { countText, duration, relativePath } from '../format';
import { Icon, Spinner } from '../Icon';
import { useDisclosure } from '../preferences';
import { LazyCommandOutput } from '../LazyCommandOutput';
import { useModal } from '../use-modal';

/** How a command stands, in words: from `weftOutcome` when the item has one, else from status and exit code. */
export function commandState(
  item: CommandExecutionItem,
  waiting: boolean,
): { label: string; tone: 'running' | 'waiting' | 'ok' | 'failed' | 'muted' } {
  if (item.status === 'inProgress')
    return waiting ? { label: 'Waiting for approval', tone: 'waiting' } : { label: 'Running', tone: 'running' };
  const failed = (code: number | null) => ({
    label: code === null ? 'Failed' : `Failed (exit ${code})`,
    tone: 'failed' as const,
  });
  switch (item.weftOutcome) {
    case 'exited':
      return item.exitCode === null || item.exitCode === 0 ? { label: 'Done', tone: 'ok' } : failed(item.exitCode);
    case 'declined':
      return { label: 'Not run (declined)', tone: 'muted' };
    case 'cancelled':
      return { label: 'Cancelled', tone: 'muted' };
    case 'stopped':
      return { label: 'Stopped', tone: 'muted' };
    case 'error':
      return { label: 'Error', tone: 'failed' };
    case undefined:
      break;
  }
  switch (item.status) {
    case 'completed':
      return item.exitCode === null || item.exitCode === 0 ? { label: 'Done', tone: 'ok' } : failed(item.exitCode);
    case 'failed':
      return failed(item.exitCode);
    case 'declined':
      return { label: 'Not run (declined)', tone: 'muted' };
  }
  return assertNever(item.status);
}

function commandStatus(item: CommandExecutionItem, waiting: boolean) {
  const state = commandState(item, waiting);
  return (
    <span className={`status status-${state.tone === 'waiting' ? 'waiting' : state.tone}`}>
      {state.tone === 'running' && <Spinner size={12} />}
      {state.label}
    </span>
  );
}

/** What the body says when there is no output to show. */
function emptyNote(item: CommandExecutionItem, waiting: boolean): string {
  if (item.status === 'inProgress') return waiting ? 'Waiting for approval.' : 'Waiting for output…';
  switch (item.weftOutcome) {
    case 'declined':
      return 'Not run: declined.';
    case 'cancelled':
      return 'Not run: the turn was cancelled.';
    case 'stopped':
      return 'Stopped before it printed anything.';
    case 'error':
      return `Could not run: ${item.weftError ?? 'unknown error'}`;
    case 'exited':
    case undefined:
      return item.status === 'declined' ? 'Not run.' : 'No output.';
  }
}

/** Characters of output a terminal cell shows until "Show all" (a long log's tail; the rest is kept). */
const SHORT_OUTPUT_CHARS = 16 * 1024;

const OutputEditor = lazy(() => import('../OutputEditor'));

/**
 * The kept output in a read-only editor; a modal (focus kept inside, Esc closes, focus goes back). Drawn
 * on the page's body: inside the conversation's rows it would be clipped and painted over by later rows.
 */
function OutputDialog({ output, command, onClose }: { output: OutputTail; command: string; onClose: () => void }) {
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, onClose);
  const titleId = useId();
  return createPortal(
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <section ref={dialog} className="review output-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <header className="review-head">
          <Icon name="terminal" />
          <h2 id={titleId}>Output of {command}</h2>
          <span className="muted">
            {output.total > output.kept
              ? `last ${countText(output.kept)} of ${countText(output.total)} characters`
              : `${countText(output.total)} characters`}
          </span>
          <span className="spacer" />
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <Icon name="x" />
          </button>
        </header>
        <Suspense fallback={<div className="tool-empty">Loading…</div>}>
          <OutputEditor text={outputText(output)} label={`Output of ${command}`} />
        </Suspense>
      </section>
    </div>,
    document.body,
  );
}

function CommandOutput({ output, command }: { output: OutputTail; command: string }) {
  const [all, setAll] = useState(false);
  const [editor, setEditor] = useState(false);
  const limit = all ? OUTPUT_TAIL_CHARS : SHORT_OUTPUT_CHARS;
  const hidden = output.total - Math.min(output.kept, limit);
  return (
    <>
      {hidden > 0 && (
        <div className="output-note">
          <span>… {countText(hidden)} earlier characters not shown …</span>
          {!all && output.kept > limit && (
            <button type="button" className="link-button" onClick={() => setAll(true)}>
              Show all
            </button>
          )}
          <button type="button" className="link-button" onClick={() => setEditor(true)}>
            Open in editor
          </button>
        </div>
      )}
      <LazyCommandOutput output={output} label={`Output of ${command}`} limit={limit} />
      {editor && <OutputDialog output={output} command={command} onClose={() => setEditor(false)} />}
    </>
  );
}

export interface CommandCellProps {
  item: CommandExecutionItem;
  output: OutputTail | null;
  cwd: string | null;
  rowKey: string;
  latest: boolean;
  /** An approval for this command is waiting for an answer. */
  waiting: boolean;
}

export function CommandCell({ item, output, cwd, rowKey, latest, waiting }: CommandCellProps) {
  const hasOutput = output !== null && output.total > 0;
  const [open, setOpen] = useDisclosure(rowKey, latest || item.status === 'inProgress');
  const showCwd = cwd === null || item.cwd !== cwd;
  return (
    <div className={`cell cell-tool cell-command is-${item.status}`}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <Icon name="terminal" size={14} />
        <code className="tool-command" title={item.command}>
          {item.command}
        </code>
        <span className="tool-meta">
          {item.source === 'userShell' && (
            <span className="tool-tag" title="You ran this in your own shell, outside the sandbox.">
              your shell, outside the sandbox
            </span>
          )}
          {item.weftWorktreeSetup === true && (
            <span
              className="tool-tag"
              title="The project's setup script ([worktree] setup), run in this thread's new worktree, in the sandbox."
            >
              worktree setup
            </span>
          )}
          {item.durationMs !== null && item.weftOutcome !== 'declined' && item.weftOutcome !== 'cancelled' && (
            <span className="muted">{duration(item.durationMs)}</span>
          )}
          {commandStatus(item, waiting)}
        </span>
      </button>
      {open && (
        <div className="tool-body">
          {showCwd && <div className="tool-cwd">in {relativePath(item.cwd, cwd)}</div>}
          {hasOutput && item.weftOutcome === 'error' && (
            <div className="tool-empty error-text">Could not run: {item.weftError ?? 'unknown error'}</div>
          )}
          {hasOutput ? (
            <CommandOutput output={output} command={item.command} />
          ) : (
            <div className={`tool-empty ${item.weftOutcome === 'error' ? 'error-text' : ''}`}>
              {emptyNote(item, waiting)}
            </div>
          )}
        </div>
      )}
    </div>
  );
}

/** A running MCP call's progress: a bar (filled when the server gave a total) and its message. */
function McpProgressLine({ item, progress }: { item: McpToolCallItem; progress: McpProgress }) {
  const known = progress.progress !== null && progress.total !== null && progress.total > 0;
  const label = `Progress of ${item.server} · ${item.tool}`;
  return (
    <div className="mcp-progress">
      {known ? (
        <progress
          aria-label={label}
          value={Math.min(progress.progress ?? 0, progress.total ?? 0)}
          max={progress.total ?? 0}
        />
      ) : (
        <progress aria-label={label} />
      )}
      <span className="mcp-progress-message muted small">{progress.message}</span>
    </div>
  );
}

export function McpToolCell({
  item,
  rowKey,
  progress,
}: {
  item: McpToolCallItem;
  rowKey: string;
  progress: McpProgress | null;
}) {
  const [open, setOpen] = useDisclosure(rowKey, false);
  return (
    <div className={`cell cell-tool is-${item.status}`}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <Icon name="plug" size={14} />
        <span className="tool-command">
          {item.server} · {item.tool}
        </span>
        <span className="tool-meta">
          {item.durationMs !== null && <span className="muted">{duration(item.durationMs)}</span>}
          {item.status === 'inProgress' ? (
            <Spinner size={12} />
          ) : (
            <span className={`status ${item.status === 'failed' ? 'status-failed' : 'status-ok'}`}>
              {item.status === 'failed' ? 'Failed' : 'Done'}
            </span>
          )}
        </span>
      </button>
      {item.status === 'inProgress' && progress !== null && <McpProgressLine item={item} progress={progress} />}
      {open && (
        <div className="tool-body">
          <pre className="json">{JSON.stringify(item.arguments, null, 2)}</pre>
          {item.error !== null && <p className="error-text">{item.error.message}</p>}
          {item.result !== null && (
            <pre className="json">{JSON.stringify(item.result.structuredContent ?? item.result.content, null, 2)}</pre>
          )}
        </div>
      )}
    </div>
  );
}

export function WebSearchCell({ item }: { item: WebSearchItem }) {
  return (
    <div className="cell cell-note">
      <Icon name="globe" size={14} /> Searched the web for <q>{item.query}</q>
    </div>
  );
}

export function ImageViewCell({ item, cwd }: { item: ImageViewItem; cwd: string | null }) {
  return (
    <div className="cell cell-note">
      <Icon name="image" size={14} /> Viewed <code>{relativePath(item.path, cwd)}</code>
    </div>
  );
}

/** A Stop hook sent the model back to work: each blocking hook's reason. */
export function HookPromptCell({ item }: { item: HookPromptItem }) {
  return (
    <div className="cell cell-divider" role="note" aria-label="Stop hook continued the turn">
      <span>
        <Icon name="shield" size={13} /> Stop hook: {item.fragments.map((f) => f.text).join('; ')}
      </span>
    </div>
  );
}

export function CompactionCell(_props: { item: ContextCompactionItem }) {
  return (
    <div className="cell cell-divider" role="separator">
      <span>
        <Icon name="compress" size={13} /> Context compacted
      </span>
    </div>
  );
}
