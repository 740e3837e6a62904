// The browser panel: the page the agent's browser shows, as its latest screenshot and address (the
// screenshot read through `fs/readFile`, as the items' thumbnails are). Opened from the header's "Browser"
// button (shown while the thread has browser actions) or an action's "Show in panel"; Esc or × closes it.
import { useEffect, useMemo, useRef } from 'react';
import { Icon, Spinner } from '../components/Icon';
import { usePngFile } from '../components/use-png-file';
import { useWeft } from '../store/app-context';
import {
  browserPanelActions,
  browserViewKey,
  useBrowserPanelOpen,
  type BrowserView,
} from '../store/browser-panel-store';

/** The active thread's browser view, or null when it has no browser action. */
function useBrowserView(): BrowserView | null {
  const key = useWeft((s) =>
    browserViewKey(s.ui.activeThreadId === null ? undefined : s.data.conversations[s.ui.activeThreadId]),
  );
  return useMemo(() => (key === '' ? null : (JSON.parse(key) as BrowserView)), [key]);
}

export function BrowserButton() {
  const open = useBrowserPanelOpen();
  const view = useBrowserView();
  if (view === null) return null;
  return (
    <button
      type="button"
      className={`btn btn-small ${open ? 'is-active' : ''}`}
      aria-pressed={open}
      title="The page the agent's browser shows"
      onClick={() => browserPanelActions.setOpen(!open)}
    >
      <Icon name="globe" size={12} /> Browser
    </button>
  );
}

export function BrowserPanel() {
  const view = useBrowserView();
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
    const onKey = (e: KeyboardEvent): void => {
      if (
        e.key === 'Escape' &&
        !e.defaultPrevented &&
        !(e.target instanceof HTMLElement && e.target.closest('[role="dialog"], [role="alertdialog"], form'))
      )
        browserPanelActions.setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  if (view === null) return null;
  return (
    <aside className="side-panel browser-panel" role="region" aria-label="Browser">
      <header className="browser-panel-head">
        <Icon name="globe" />
        <h2>Browser</h2>
        <span className="spacer" />
        <button
          ref={close}
          type="button"
          className="icon-button"
          aria-label="Close browser panel"
          onClick={() => browserPanelActions.setOpen(false)}
        >
          <Icon name="x" />
        </button>
      </header>
      <div className="browser-panel-url">
        <span className="muted small">Address</span>
        <code data-testid="browser-panel-url">{view.url ?? 'no page open'}</code>
      </div>
      <div className="browser-panel-body" tabIndex={0} aria-label="Latest screenshot (scrolls)">
        {view.shot === null ? (
          <p className="muted">No screenshot yet: the agent has not taken one in this thread.</p>
        ) : (
          <LatestShot key={view.shot.path} shot={view.shot} />
        )}
      </div>
    </aside>
  );
}

function LatestShot({ shot }: { shot: NonNullable<BrowserView['shot']> }) {
  const src = usePngFile(shot.path);
  const label = `Latest screenshot${shot.url === null ? '' : ` of ${shot.url}`}, ${shot.width}×${shot.height} px`;
  return (
    <figure className="browser-panel-shot">
      <figcaption className="muted small">{label}</figcaption>
      {src === undefined ? (
        <Spinner size={14} />
      ) : src === null ? (
        <p className="muted">The file {shot.path} cannot be read.</p>
      ) : (
        <img src={src} alt={label} width={shot.width} height={shot.height} />
      )}
    </figure>
  );
}
