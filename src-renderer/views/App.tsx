// The window: sidebar and the open thread (or the welcome screen before a project is chosen), with the
// dialogs and notices over them. Keeps the page title in step ("(2) project — Weft" when two requests
// wait on the person).
import { useEffect } from 'react';
import { baseName } from '../components/format';
import { ConnectionBanner, Toasts } from './Chrome';
import { useWeft } from './context';
import { ConversationView } from './ConversationView';
import { ProjectPicker, Welcome } from './ProjectPicker';
import { Sidebar } from './Sidebar';
import { TurnDiffDialog } from './TurnDiffDialog';

function useTitle(): void {
  const cwd = useWeft((s) => s.data.cwd);
  const waiting = useWeft((s) => s.data.approvals.length);
  useEffect(() => {
    const base = cwd === null ? 'Weft' : `${baseName(cwd)} — Weft`;
    document.title = waiting > 0 ? `(${waiting}) ${base}` : base;
  }, [cwd, waiting]);
}

export function App() {
  useTitle();
  const cwd = useWeft((s) => s.data.cwd);
  const picker = useWeft((s) => s.ui.projectPicker);
  const turnDiff = useWeft((s) => s.ui.turnDiff);
  return (
    <div className="app">
      {cwd === null ? (
        <>
          <ConnectionBanner />
          <Welcome />
        </>
      ) : (
        <div className="layout">
          <Sidebar />
          <div className="main-column">
            <ConnectionBanner />
            <ConversationView />
            {turnDiff !== null && <TurnDiffDialog threadId={turnDiff.threadId} turnId={turnDiff.turnId} />}
          </div>
        </div>
      )}
      {picker && <ProjectPicker />}
      <Toasts />
    </div>
  );
}
