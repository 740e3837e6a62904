// One action of the agent's browser: what it did, the page's address, and the screenshot it took (a
// thumbnail, read through `fs/readFile`; click to see it whole).
import { useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { BrowserActionItem, BrowserScreenshot } from '../../../src-preload/protocol';
import { browserPanelActions } from '../../store/browser-panel-store';
import { duration } from '../format';
import { Icon, Spinner } from '../Icon';
import { useModal } from '../use-modal';
import { usePngFile } from '../use-png-file';

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
    <div className="cell cell-note browser-cell" data-browser-action={item.action}>
      <div>
        {running ? <Spinner size={14} /> : <Icon name="globe" size={14} />} {VERBS[item.action]}{' '}
        {item.target === '' ? null : <code>{item.target}</code>}
        {item.url === null || item.url === item.target ? null : (
          <>
            {' '}
            at <code>{item.url}</code>
          </>
        )}
        {item.durationMs === null ? null : <span className="muted"> · {duration(item.durationMs)}</span>}{' '}
        <button type="button" className="link-button small" onClick={() => browserPanelActions.setOpen(true)}>
          Show in panel
        </button>
      </div>
      {item.status === 'failed' ? <div className="status status-failed">{item.error ?? 'Failed'}</div> : null}
      {item.screenshot === null ? null : (
        <Screenshot key={item.screenshot.path} shot={item.screenshot} url={item.url} />
      )}
    </div>
  );
}

function Screenshot({ shot, url }: { shot: BrowserScreenshot; url: string | null }) {
  const src = usePngFile(shot.path);
  const [open, setOpen] = useState(false);
  const label = `Screenshot${url === null ? '' : ` of ${url}`}, ${shot.width}×${shot.height} px`;
  if (src === null)
    return (
      <div className="muted">
        {label}: the file {shot.path} cannot be read
      </div>
    );
  return (
    <>
      <button
        type="button"
        className="browser-thumb"
        aria-label={`${label} (click to enlarge)`}
        onClick={() => setOpen(true)}
      >
        {src === undefined ? (
          <Spinner size={14} />
        ) : (
          <img src={src} alt={label} width={240} height={Math.round((240 * shot.height) / shot.width)} />
        )}
      </button>
      {open && src !== undefined ? <ScreenshotDialog src={src} label={label} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

/** The screenshot at its own size (scrolled when larger than the window); a modal, Esc closes. */
function ScreenshotDialog({ src, label, onClose }: { src: string; label: string; onClose: () => void }) {
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, onClose);
  const titleId = useId();
  return createPortal(
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <section
        ref={dialog}
        className="review browser-shot-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
      >
        <header className="review-head">
          <Icon name="globe" />
          <h2 id={titleId}>{label}</h2>
          <span className="spacer" />
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <Icon name="x" />
          </button>
        </header>
        <div className="browser-shot-body">
          <img src={src} alt={label} />
        </div>
      </section>
    </div>,
    document.body,
  );
}
