// The browser panel: the page the agent's browser shows — live while the thread's browser has a page open
// (frames streamed by the host; the person can click, scroll and type in it), else its latest screenshot and
// address (the screenshot read through `fs/readFile`, as the items' thumbnails are). Opened from the header's
// "Browser" button (shown while the thread has browser actions) or an action's "Show in panel"; Esc or ×
// closes it.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { WeftBrowserLiveFrame, WeftBrowserLiveInput } from '../../src-preload/protocol';
import { useBrowserLive, type BrowserLive } from '../components/use-browser-live';
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
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const live = useBrowserLive(view === null ? null : threadId);
  const [mode, setMode] = useState<'live' | 'screenshot'>('live');
  const showLive = live.frame !== null && (mode === 'live' || view?.shot === null);
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
        {live.frame !== null && view.shot !== null && (
          <div className="segmented browser-panel-mode" role="group" aria-label="What the panel shows">
            <button type="button" aria-pressed={showLive} onClick={() => setMode('live')}>
              Live
            </button>
            <button type="button" aria-pressed={!showLive} onClick={() => setMode('screenshot')}>
              Latest screenshot
            </button>
          </div>
        )}
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
        <code data-testid="browser-panel-url">{(showLive ? live.frame?.url : null) ?? view.url ?? 'no page open'}</code>
      </div>
      {showLive && live.frame !== null ? (
        <div className="browser-panel-body">
          <LivePage frame={live.frame} send={live.send} />
        </div>
      ) : (
        <div className="browser-panel-body" tabIndex={0} aria-label="Latest screenshot (scrolls)">
          {view.shot === null ? (
            <p className="muted">No screenshot yet: the agent has not taken one in this thread.</p>
          ) : (
            <LatestShot key={view.shot.path} shot={view.shot} />
          )}
        </div>
      )}
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

/** Keys played in the page by name; printable characters go as text. Tab and Esc stay the app's. */
const NAMED_KEYS = new Set([
  'Enter',
  'Backspace',
  'Delete',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
]);

const BUTTONS: Record<number, 'left' | 'middle' | 'right'> = { 0: 'left', 1: 'middle', 2: 'right' };

/**
 * The pointer's moves over the live page, sent at most every 30 ms while a button is held (a drag) and every
 * 100 ms otherwise (hover), always ending where the pointer stopped.
 */
class PointerMoves {
  private pending: { x: number; y: number } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private last = 0;

  constructor(private readonly sendMove: (point: { x: number; y: number }) => void) {}

  push(point: { x: number; y: number }, pressed: boolean): void {
    this.pending = point;
    if (this.timer !== null) return;
    const wait = Math.max(0, this.last + (pressed ? 30 : 100) - performance.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends the move waiting now, if any (before a press or release at another place). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const point = this.pending;
    this.pending = null;
    if (point === null) return;
    this.last = performance.now();
    this.sendMove(point);
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }
}

/** The page as it is now; the pointer (clicks, drags), the wheel and keys (while it has the focus) go into it. */
function LivePage({ frame, send }: { frame: WeftBrowserLiveFrame; send: BrowserLive['send'] }) {
  const surface = useRef<HTMLDivElement>(null);
  const [refused, setRefused] = useState(false);
  const play = (input: WeftBrowserLiveInput): void => {
    void send(input).then((taken) => setRefused(!taken));
  };
  const moves = useRef(new PointerMoves((point) => void send({ type: 'move', ...point })));
  useEffect(() => {
    const pending = moves.current;
    return () => pending.dispose();
  }, []);
  /** Where on the page a pointer event is, in the page's own pixels. */
  const at = (clientX: number, clientY: number): { x: number; y: number } | null => {
    const box = surface.current?.getBoundingClientRect();
    if (box === undefined || box.width === 0 || box.height === 0) return null;
    return {
      x: Math.round(((clientX - box.left) * frame.width) / box.width),
      y: Math.round(((clientY - box.top) * frame.height) / box.height),
    };
  };
  // The wheel scrolls the page, not the panel: a listener that may cancel it (React's is passive).
  const latest = useRef({ frame, send });
  useEffect(() => {
    latest.current = { frame, send };
  });
  useEffect(() => {
    const element = surface.current;
    if (element === null) return;
    const onWheel = (e: WheelEvent): void => {
      e.preventDefault();
      const box = element.getBoundingClientRect();
      const { frame: f, send: s } = latest.current;
      const scale = box.width === 0 ? 1 : f.width / box.width;
      const lines =
        e.deltaMode === WheelEvent.DOM_DELTA_LINE ? 16 : e.deltaMode === WheelEvent.DOM_DELTA_PAGE ? f.height : 1;
      void s({
        type: 'wheel',
        x: Math.max(0, Math.round((e.clientX - box.left) * scale)),
        y: Math.max(0, Math.round((e.clientY - box.top) * scale)),
        deltaX: Math.max(-10_000, Math.min(10_000, e.deltaX * lines)),
        deltaY: Math.max(-10_000, Math.min(10_000, e.deltaY * lines)),
      });
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, []);
  const label = `Live page ${frame.url}: click, scroll and type to use it`;
  return (
    <figure className="browser-panel-shot browser-live">
      <figcaption className="muted small">
        <span className="browser-live-badge">Live</span> {frame.width}×{frame.height} px
        {refused && <span className="browser-live-refused"> · the page did not take that (it may be loading)</span>}
      </figcaption>
      <div
        ref={surface}
        className="browser-live-surface"
        role="application"
        aria-label={label}
        tabIndex={0}
        onPointerDown={(e) => {
          e.preventDefault();
          e.currentTarget.focus();
          // Moves and the release come here even when the pointer leaves the picture mid-drag.
          e.currentTarget.setPointerCapture(e.pointerId);
          const point = at(e.clientX, e.clientY);
          if (point !== null) play({ type: 'down', ...point, button: BUTTONS[e.button] ?? 'left' });
        }}
        onPointerMove={(e) => {
          const point = at(e.clientX, e.clientY);
          if (point !== null) moves.current.push(point, e.buttons !== 0);
        }}
        onPointerUp={(e) => {
          const point = at(e.clientX, e.clientY);
          if (point === null) return;
          moves.current.flush();
          play({ type: 'up', ...point, button: BUTTONS[e.button] ?? 'left' });
        }}
        onContextMenu={(e) => e.preventDefault()}
        onKeyDown={(e) => {
          if (e.key === 'Tab' || e.key === 'Escape' || e.nativeEvent.isComposing) return;
          const chord = e.ctrlKey || e.metaKey || e.altKey;
          if (!chord && e.key.length === 1) {
            e.preventDefault();
            play({ type: 'text', text: e.key });
          } else if (NAMED_KEYS.has(e.key)) {
            e.preventDefault();
            play({ type: 'key', key: e.key });
          }
        }}
      >
        <img
          src={`data:image/jpeg;base64,${frame.data}`}
          alt=""
          width={frame.width}
          height={frame.height}
          draggable={false}
        />
      </div>
    </figure>
  );
}
