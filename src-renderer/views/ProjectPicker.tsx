// Choosing the project folder: the desktop app's native dialog when there is one, else a path field; and
// the recent projects.
import { useEffect, useId, useRef, useState } from 'react';
import { baseName } from '../components/format';
import { Icon } from '../components/Icon';
import { useModal } from '../components/use-modal';
import { useApp, useWeft } from './context';

export function ProjectChooser({ autoFocus }: { autoFocus: boolean }) {
  const { controller, desktop } = useApp();
  const recent = useWeft((s) => s.ui.recentProjects);
  const cwd = useWeft((s) => s.data.cwd);
  const [path, setPath] = useState('');
  /** In the desktop app a project opens in its own window; in a browser this page switches to it. */
  const open = (folder: string): void => {
    if (desktop === null) controller.openProject(folder);
    else void desktop.openProject(folder.trim());
  };
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);
  return (
    <div className="project-chooser">
      {desktop !== null && (
        <button type="button" className="btn btn-primary btn-wide" onClick={() => void desktop.openProject(null)}>
          <Icon name="folder" size={14} /> Choose a folder…
        </button>
      )}
      <form
        className="path-form"
        onSubmit={(e) => {
          e.preventDefault();
          open(path);
        }}
      >
        <input ref={input} className="text-input" aria-label="Folder path" placeholder="/path/to/your/project" value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} />
        <button type="submit" className="btn" disabled={path.trim() === ''}>
          Open
        </button>
      </form>
      {recent.length > 0 && (
        <div className="recent">
          <div className="section-label">Recent</div>
          <ul>
            {recent.map((project) => (
              <li key={project}>
                <button type="button" className={`recent-item ${project === cwd ? 'is-current' : ''}`} onClick={() => open(project)}>
                  <Icon name="folder" size={14} />
                  <span className="recent-name">{baseName(project)}</span>
                  <span className="recent-path">{project}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

export function ProjectPicker() {
  const { controller } = useApp();
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, () => controller.setProjectPicker(false));
  return (
    <div className="overlay overlay-center" onMouseDown={(e) => e.target === e.currentTarget && controller.setProjectPicker(false)}>
      <section className="sheet" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        <header className="sheet-head">
          <h2 id={titleId}>Open folder</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => controller.setProjectPicker(false)}>
            <Icon name="x" />
          </button>
        </header>
        <ProjectChooser autoFocus />
      </section>
    </div>
  );
}

export function Welcome() {
  const { controller } = useApp();
  return (
    <div className="welcome">
      <div className="welcome-card">
        <div className="brand-mark" aria-hidden="true">
          W
        </div>
        <h1>Welcome to Weft</h1>
        <p className="muted">Open a project folder to start. Threads, approvals and history are kept per project.</p>
        <ProjectChooser autoFocus />
        <button type="button" className="link-button small welcome-settings" onClick={() => controller.openSettings()}>
          <Icon name="settings" size={12} /> Settings
        </button>
      </div>
    </div>
  );
}
