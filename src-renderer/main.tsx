// The renderer's entry: connect (Electron bridge or WebSocket), build the store and controller, render.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { renderMarkdownBlocks } from './components/markdown/render';
import { connectWeft, findBridge } from './client';
import { createController } from './store/controller';
import { animationFrameScheduler } from './store/frame-batcher';
import { loadOpenProjects, loadRecentProjects, readLocation, rememberProject } from './store/location';
import { createAppStore, setUi } from './store/store';
import { App } from './views/App';
import { focusWaitingRequest } from './views/notifications';
import { handleShellEvent } from './store/shell-events';
import './components/use-color-scheme';
import { AppContext } from './store/app-context';
import './styles/tokens.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/sidebar.css';
import './styles/conversation.css';
import './styles/diff.css';
import './styles/composer.css';
import './styles/dialogs.css';
import './styles/markdown.css';
import './styles/settings.css';
import './styles/checkpoints.css';
import './styles/terminal.css';
import './styles/changes.css';
import './styles/worktrees.css';
import './styles/automations.css';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function Fatal({ message }: { message: string }) {
  return (
    <div className="welcome">
      <div className="welcome-card">
        <h1>Weft cannot start here</h1>
        <p className="muted">{message}</p>
      </div>
    </div>
  );
}

/** Markdown with the common blocks (paragraph, emphasis, code, list, link), rendered once at start-up. */
const MARKDOWN_WARM_UP =
  '# Title\n\nSome **bold** and `code` with a [link](https://example.com).\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n';

/** Runs `task` when the page is idle (or after 2 s at the latest). */
function whenIdle(win: Window, task: () => void): void {
  if (typeof win.requestIdleCallback === 'function') win.requestIdleCallback(task, { timeout: 2000 });
  else win.setTimeout(task, 500);
}

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element.');
const root = createRoot(container);

try {
  const bridge = findBridge(window);
  const client = connectWeft(window, { name: 'weft-ui', title: 'Weft', version: __WEFT_VERSION__ });
  const local = storage();
  const location = readLocation(window.location.href);
  let recent = loadRecentProjects(local);
  const openProjects = loadOpenProjects(local);
  const cwd = location.cwd ?? openProjects[0] ?? recent[0] ?? null;
  if (cwd !== null) recent = rememberProject(local, recent, cwd);
  const store = createAppStore(cwd, recent, openProjects);
  if (cwd !== null && location.threadId !== null)
    setUi(store, { activeThreadId: location.threadId, loadingThreadId: location.threadId });
  const controller = createController(client, store, {
    scheduler: animationFrameScheduler(window),
    href: () => window.location.href,
    replaceHref: (href) => window.history.replaceState(null, '', href),
    storage: local,
    visibility: {
      visible: () => document.visibilityState === 'visible',
      onChange(listener) {
        document.addEventListener('visibilitychange', listener);
        return () => document.removeEventListener('visibilitychange', listener);
      },
    },
  });
  controller.start();
  bridge?.onShellEvent((event) => handleShellEvent(controller, event, () => focusWaitingRequest()));
  window.addEventListener('pagehide', () => {
    controller.dispose();
    client.dispose();
  });
  // Monaco (diffs) and the terminal parser (command output) load on first use, Monaco's first editor sets up the
  // editor's services, and Markdown's first run is slow until the JIT has seen it: do all of it once the
  // page has settled, so opening the first thread, or the first diff, waits for none of them.
  whenIdle(window, () => {
    renderMarkdownBlocks(MARKDOWN_WARM_UP, null);
    // `data-warm` on <html> says start-up is over (the UI bench waits for it before opening a thread).
    void Promise.allSettled([
      import('./components/CommandOutput'),
      import('./components/diff/MonacoDiff').then((diff) => diff.warmUpEditor(document)),
    ]).then(() => {
      document.documentElement.dataset['warm'] = 'true';
    });
  });
  root.render(
    <StrictMode>
      <AppContext.Provider
        value={{
          store,
          controller,
          desktop:
            bridge === null
              ? null
              : { openProject: (path) => bridge.openProject(path), chooseFolder: () => bridge.chooseFolder() },
        }}
      >
        <App />
      </AppContext.Provider>
    </StrictMode>,
  );
} catch (error) {
  root.render(<Fatal message={error instanceof Error ? error.message : String(error)} />);
}
