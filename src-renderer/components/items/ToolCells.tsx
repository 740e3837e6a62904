// Commands, MCP tool calls, web searches, image views and compactions.
import type { CommandExecutionItem, ContextCompactionItem, ImageViewItem, McpToolCallItem, WebSearchItem } from '../../../src-preload/protocol';
import type { OutputTail } from '../../store/state';
import { assertNever } from '../../store/assert-never';
import { duration, relativePath } from '../format';
import { Icon, Spinner } from '../Icon';
import { useDisclosure } from '../preferences';
import { LazyTerminal } from '../LazyTerminal';

/** How a command stands, in words: from `weftOutcome` when the item has one, else from status and exit code. */
export function commandState(item: CommandExecutionItem, waiting: boolean): { label: string; tone: 'running' | 'waiting' | 'ok' | 'failed' | 'muted' } {
  if (item.status === 'inProgress') return waiting ? { label: 'Waiting for approval', tone: 'waiting' } : { label: 'Running', tone: 'running' };
  const failed = (code: number | null) => ({ label: code === null ? 'Failed' : `Failed (exit ${code})`, tone: 'failed' as const });
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
          {item.durationMs !== null && item.weftOutcome !== 'declined' && item.weftOutcome !== 'cancelled' && <span className="muted">{duration(item.durationMs)}</span>}
          {commandStatus(item, waiting)}
        </span>
      </button>
      {open && (
        <div className="tool-body">
          {showCwd && <div className="tool-cwd">in {relativePath(item.cwd, cwd)}</div>}
          {hasOutput && item.weftOutcome === 'error' && <div className="tool-empty error-text">Could not run: {item.weftError ?? 'unknown error'}</div>}
          {hasOutput ? (
            <LazyTerminal output={output} label={`Output of ${item.command}`} />
          ) : (
            <div className={`tool-empty ${item.weftOutcome === 'error' ? 'error-text' : ''}`}>{emptyNote(item, waiting)}</div>
          )}
        </div>
      )}
    </div>
  );
}

export function McpToolCell({ item, rowKey }: { item: McpToolCallItem; rowKey: string }) {
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
          {item.status === 'inProgress' ? <Spinner size={12} /> : <span className={`status ${item.status === 'failed' ? 'status-failed' : 'status-ok'}`}>{item.status === 'failed' ? 'Failed' : 'Done'}</span>}
        </span>
      </button>
      {open && (
        <div className="tool-body">
          <pre className="json">{JSON.stringify(item.arguments, null, 2)}</pre>
          {item.error !== null && <p className="error-text">{item.error.message}</p>}
          {item.result !== null && <pre className="json">{JSON.stringify(item.result.structuredContent ?? item.result.content, null, 2)}</pre>}
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

export function CompactionCell(_props: { item: ContextCompactionItem }) {
  return (
    <div className="cell cell-divider" role="separator">
      <span>
        <Icon name="compress" size={13} /> Context compacted
      </span>
    </div>
  );
}
