// Commands, MCP tool calls, web searches, image views and compactions.
import type { CommandExecutionItem, ContextCompactionItem, ImageViewItem, McpToolCallItem, WebSearchItem } from '../../../src-preload/protocol';
import type { OutputTail } from '../../store/state';
import { assertNever } from '../../store/assert-never';
import { duration, relativePath } from '../format';
import { Icon, Spinner } from '../Icon';
import { useDisclosure } from '../preferences';
import { LazyTerminal } from '../LazyTerminal';

function commandStatus(item: CommandExecutionItem) {
  switch (item.status) {
    case 'inProgress':
      return (
        <span className="status status-running">
          <Spinner size={12} /> Running
        </span>
      );
    case 'completed':
      return <span className="status status-ok">{item.exitCode === null ? 'Done' : `Exit ${item.exitCode}`}</span>;
    case 'failed':
      return <span className="status status-failed">{item.exitCode === null ? 'Failed' : `Exit ${item.exitCode}`}</span>;
    case 'declined':
      return <span className="status status-muted">Declined</span>;
  }
  return assertNever(item.status);
}

export interface CommandCellProps {
  item: CommandExecutionItem;
  output: OutputTail | null;
  cwd: string | null;
  rowKey: string;
  latest: boolean;
}

export function CommandCell({ item, output, cwd, rowKey, latest }: CommandCellProps) {
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
          {item.durationMs !== null && <span className="muted">{duration(item.durationMs)}</span>}
          {commandStatus(item)}
        </span>
      </button>
      {open && (
        <div className="tool-body">
          {showCwd && <div className="tool-cwd">in {relativePath(item.cwd, cwd)}</div>}
          {hasOutput ? (
            <LazyTerminal output={output} label={`Output of ${item.command}`} />
          ) : (
            <div className="tool-empty">{item.status === 'inProgress' ? 'Waiting for output…' : item.status === 'declined' ? 'Not run.' : 'No output.'}</div>
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
