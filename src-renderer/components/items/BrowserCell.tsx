// One action of the agent's browser: what it did, the page's address, and the screenshot it took.
import type { BrowserActionItem } from '../../../src-preload/protocol';
import { duration } from '../format';
import { Icon, Spinner } from '../Icon';

const VERBS: Record<BrowserActionItem['action'], string> = {
  open: 'Opened',
  screenshot: 'Took a screenshot of',
  click: 'Clicked',
  type: 'Typed',
  read: 'Read',
  console: 'Read the console',
  evaluate: 'Evaluated',
  close: 'Closed the browser',
};

export function BrowserCell({ item }: { item: BrowserActionItem }) {
  const running = item.status === 'inProgress';
  return (
    <div className="cell cell-note" data-browser-action={item.action}>
      {running ? <Spinner size={14} /> : <Icon name="globe" size={14} />} {VERBS[item.action]}{' '}
      {item.target === '' ? null : <code>{item.target}</code>}
      {item.url === null || item.url === item.target ? null : (
        <>
          {' '}
          at <code>{item.url}</code>
        </>
      )}
      {item.durationMs === null ? null : <span className="muted"> · {duration(item.durationMs)}</span>}
      {item.status === 'failed' ? <div className="status status-failed">{item.error ?? 'Failed'}</div> : null}
      {item.screenshot === null ? null : (
        <div className="muted">
          Screenshot {item.screenshot.width}×{item.screenshot.height} px: <code>{item.screenshot.path}</code>
        </div>
      )}
    </div>
  );
}
