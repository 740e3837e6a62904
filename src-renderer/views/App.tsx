// The window: sidebar and the open thread (or the welcome screen before a project is chosen), with the
// dialogs and notices over them. Keeps the page title in step ("(2) project — Weft" when two requests
// wait on the person).
import { lazy, Suspense, useEffect, useRef } from 'react';
import { baseName } from '../components/format';
import { ConnectionBanner, Toasts } from './Chrome';
import { Icon } from '../components/Icon';
import { usePreference } from '../components/preferences';
import { useController, useWeft } from '../store/app-context';
import { ConversationView } from './ConversationView';
import { ProjectConfigPrompt } from './ProjectConfigPrompt';
import { ProjectPicker, Welcome } from './ProjectPicker';
import { CheckpointLayer } from './checkpoints/CheckpointLayer';
import { WorktreeLayer } from './worktrees/WorktreeLayer';
import { LiveRegion } from './LiveRegion';
import { useAttentionNotifications } from './notifications';
import { SettingsDialog } from './settings/SettingsDialog';
import { Sidebar } from './Sidebar';
import { isNextNeedingYouKey, SHORTCUT_MOD } from './shortcuts';
import { TurnDiffDialog } from './TurnDiffDialog';
import { ChangesPanel } from './changes/ChangesPanel';
import { BrowserPanel } from './BrowserPanel';
import { useBrowserPanelOpen } from '../store/browser-panel-store';
import { useChanges } from '../store/changes-store';
import { workFolder } from '../store/selectors';
import { localFolder } from '../store/project-key';
import { terminalActions, useTerminalState } from '../store/terminal-store';
import { openAutomations, useAutomationsUi } from '../store/automations-ui';
import { AutomationsScreen } from './automations/AutomationsScreen';

function useTitle(): void {
  const cwd = useWeft((s) => s.data.cwd);
  const waiting = useWeft((s) => s.data.approvals.length);
  useEffect(() => {
    const base = cwd === null ? 'Weft' : `${baseName(cwd)} — Weft`;
    document.title = waiting > 0 ? `(${waiting}) ${base}` : base;
  }, [cwd, waiting]);
}

const TerminalPanel = lazy(() => import('./TerminalPanel').then((m) => ({ default: m.TerminalPanel })));

/** Ctrl+` shows or hides the terminal panel (also on macOS, as in editors). */
function useTerminalShortcut(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.ctrlKey && !event.altKey && !event.metaKey && (event.key === '`' || event.code === 'Backquote')) {
        event.preventDefault();
        terminalActions.toggle();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** Ctrl+J (⌘J) shows the next thread that needs the person, in any open project. */
function useNextNeedingYouShortcut(): void {
  const controller = useController();
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (!isNextNeedingYouKey(event)) return;
      event.preventDefault();
      controller.showNextNeedingYou();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [controller]);
}

const SIDEBAR_STATES = ['open', 'collapsed'] as const;

/** The sidebar's state (kept across reloads), toggled by Ctrl+B (⌘B on macOS). */
function useSidebar(): [boolean, (open: boolean) => void] {
  const [state, setState] = usePreference('weft.sidebar', SIDEBAR_STATES, 'open');
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'b') {
        event.preventDefault();
        setState(state === 'open' ? 'collapsed' : 'open');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [state, setState]);
  return [state === 'open', (open) => setState(open ? 'open' : 'collapsed')];
}

export function App() {
  useTitle();
  useAttentionNotifications();
  const controller = useController();
  const cwd = useWeft((s) => s.data.cwd);
  const folder = useWeft((s) => workFolder(s.data, s.ui.activeThreadId)) ?? cwd;
  const picker = useWeft((s) => s.ui.projectPicker);
  const turnDiff = useWeft((s) => s.ui.turnDiff);
  const settings = useWeft((s) => s.ui.settingsOpen !== null);
  const [sidebarOpen, setSidebarOpen] = useSidebar();
  useTerminalShortcut();
  useNextNeedingYouShortcut();
  const terminal = useTerminalState((t) => t);
  const changesOpen = useChanges((s) => s.open);
  const browserOpen = useBrowserPanelOpen();
  const automations = useAutomationsUi((s) => s.screen);
  // A thread chosen (in the sidebar, by a notification, Continue) shows instead of the Automations screen.
  // Only a change of thread closes it: a page just loaded keeps the screen a notification's click opened.
  const activeThreadId = useWeft((s) => s.ui.activeThreadId);
  const shownThread = useRef(activeThreadId);
  useEffect(() => {
    if (shownThread.current === activeThreadId) return;
    shownThread.current = activeThreadId;
    openAutomations(null);
  }, [activeThreadId]);
  return (
    <div className="app">
      {cwd === null ? (
        <>
          <ConnectionBanner />
          <Welcome />
        </>
      ) : (
        <div className={`layout ${sidebarOpen ? '' : 'is-sidebar-collapsed'}`}>
          {sidebarOpen && <Sidebar onHide={() => setSidebarOpen(false)} />}
          <div className="main-column">
            {!sidebarOpen && (
              <div className="sidebar-rail">
                <button
                  type="button"
                  className="icon-button"
                  aria-label="Show sidebar"
                  aria-keyshortcuts="Control+B"
                  title={`Show sidebar (${SHORTCUT_MOD}B)`}
                  onClick={() => setSidebarOpen(true)}
                >
                  <Icon name="sidebar" />
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label="Settings"
                  title="Settings"
                  onClick={() => controller.openSettings()}
                >
                  <Icon name="settings" />
                </button>
              </div>
            )}
            <ConnectionBanner />
            <CheckpointLayer />
            <WorktreeLayer />
            {automations === null ? <ConversationView /> : <AutomationsScreen tab={automations} />}
            {terminal.started && (
              <Suspense fallback={null}>
                <TerminalPanel
                  cwd={folder ?? cwd}
                  open={terminal.open}
                  onClose={() => terminalActions.setOpen(false)}
                />
              </Suspense>
            )}
            {browserOpen && <BrowserPanel />}
            {changesOpen && <ChangesPanel key={folder ?? cwd} cwd={folder ?? cwd} />}
            {turnDiff !== null && <TurnDiffDialog threadId={turnDiff.threadId} turnId={turnDiff.turnId} />}
          </div>
        </div>
      )}
      {cwd !== null && localFolder(cwd) !== null && <ProjectConfigPrompt cwd={cwd} />}
      {picker && <ProjectPicker />}
      {settings && <SettingsDialog />}
      <Toasts />
      <LiveRegion />
    </div>
  );
}
