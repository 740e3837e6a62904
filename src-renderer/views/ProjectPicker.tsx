// Choosing the project folder: the desktop app's native dialog when there is one, else a path field (a
// folder of this machine or of a configured environment); and
// the recent projects.
import { useEffect, useId, useRef, useState } from 'react';
import { baseName } from '../components/format';
import { Icon } from '../components/Icon';
import { useModal } from '../components/use-modal';
import { useApp, useWeft } from '../store/app-context';
import { SetupNotice } from './settings/SetupNotice';
import { projectPlace } from '../store/project-key';
import type { WeftEnvironmentEntry, WeftInstallableData } from '../../src-preload/protocol';
import { InstallWeft } from './InstallWeft';
import { ReviewModes } from '../components/ReviewModes';

/**
 * Where the folder is: this machine, or one of the environments of the server's config.toml (listed by
 * `weft/environment/list`).
 */
function WhereChoice({ where, onChange }: { where: string | null; onChange: (where: string | null) => void }) {
  const { controller } = useApp();
  const [environments, setEnvironments] = useState<WeftEnvironmentEntry[]>([]);
  useEffect(() => {
    let current = true;
    void controller
      .request('weft/environment/list', {})
      .then((r) => current && setEnvironments(r.data))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [controller]);
  if (environments.length === 0) return null;
  const choice = (name: string | null, label: string, title: string) => (
    <button type="button" key={name ?? ''} aria-pressed={where === name} title={title} onClick={() => onChange(name)}>
      {label}
    </button>
  );
  return (
    <div className="where-choice">
      <span className="section-label">Where</span>
      <span className="segmented" role="group" aria-label="Where the folder is">
        {choice(null, 'This machine', 'A folder of the machine Weft runs on')}
        {environments.map((e) =>
          choice(
            e.name,
            e.name,
            `A folder on ${e.name} (${e.destination ?? 'through its command'}); the agent runs there`,
          ),
        )}
      </span>
    </div>
  );
}

export function ProjectChooser({ autoFocus }: { autoFocus: boolean }) {
  const { controller, desktop } = useApp();
  const recent = useWeft((s) => s.ui.recentProjects);
  const cwd = useWeft((s) => s.data.cwd);
  const [path, setPath] = useState('');
  const [where, setWhere] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  /** The environment needs this Weft installed: the offer shown under the problem. */
  const [install, setInstall] = useState<WeftInstallableData['weftInstall'] | null>(null);
  const [completions, setCompletions] = useState<string[]>([]);
  const listId = useId();
  const problemId = useId();
  /**
   * In the desktop app a project of this machine opens in its own window (the shell checks the folder); in
   * a browser, and for a folder on an environment, this window switches to it once the server there (this
   * machine's, or the environment's) says it is a folder.
   */
  const open = async (folder: string, environment: string | null): Promise<void> => {
    if (desktop !== null && environment === null) {
      void desktop.openProject(folder.trim());
      return;
    }
    const failed = await controller.openTypedProjectOr(folder, environment);
    setProblem(failed?.message ?? null);
    setInstall(failed?.install ?? null);
  };
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);
  // Folder names complete as the person types (the server lists what is there).
  useEffect(() => {
    // The desktop app's native dialog chooses folders of this machine; those of an environment complete here.
    const typing = desktop === null || where !== null;
    if (!typing || path.trim() === '') return;
    let current = true;
    const timer = window.setTimeout(() => {
      void controller
        .request('weft/fs/complete', { path, ...(where === null ? {} : { weftEnvironment: where }) })
        .then((r) => current && setCompletions(r.completions))
        .catch(() => undefined);
    }, 120);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [path, where, desktop, controller]);
  return (
    <div className="project-chooser">
      {desktop !== null && (
        <button type="button" className="btn btn-primary btn-wide" onClick={() => void desktop.openProject(null)}>
          <Icon name="folder" size={14} /> Choose a folder…
        </button>
      )}
      <WhereChoice
        where={where}
        onChange={(next) => {
          setWhere(next);
          setCompletions([]);
          setProblem(null);
          setInstall(null);
          input.current?.focus();
        }}
      />
      <form
        className="path-form"
        onSubmit={(e) => {
          e.preventDefault();
          void open(path, where);
        }}
      >
        <input
          ref={input}
          className="text-input"
          aria-label="Folder path"
          placeholder={where === null ? '/path/to/your/project' : `/path/on/${where}`}
          value={path}
          onChange={(e) => {
            setPath(e.target.value);
            setProblem(null);
            setInstall(null);
          }}
          spellCheck={false}
          list={listId}
          aria-invalid={problem !== null}
          aria-describedby={problem === null ? undefined : problemId}
        />
        <datalist id={listId}>
          {((desktop !== null && where === null) || path.trim() === '' ? [] : completions).map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <button type="submit" className="btn" disabled={path.trim() === ''}>
          Open
        </button>
      </form>
      {problem !== null && (
        <p id={problemId} className="settings-status settings-status-error" role="alert">
          {problem}
        </p>
      )}
      {install !== null && (
        <InstallWeft
          key={install.environment}
          offer={install}
          onInstalled={() => {
            // The environment now starts the new Weft: the folder is checked (and opened) again.
            setProblem(null);
            void open(path, install.environment);
          }}
        />
      )}
      {recent.length > 0 && (
        <div className="recent">
          <div className="section-label">Recent</div>
          <ul>
            {recent.map((project) => {
              const place = projectPlace(project);
              return (
                <li key={project} className="recent-row">
                  <button
                    type="button"
                    className={`recent-item ${project === cwd ? 'is-current' : ''}`}
                    onClick={() => void open(place.folder, place.environment)}
                  >
                    <Icon name="folder" size={14} />
                    <span className="recent-name">{baseName(place.folder)}</span>
                    <span className="recent-path">{place.folder}</span>
                    {place.environment !== null && <span className="project-env">{place.environment}</span>}
                  </button>
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Remove ${project} from Recent`}
                    title="Remove from Recent"
                    onClick={() => controller.forgetProject(project)}
                  >
                    <Icon name="x" size={12} />
                  </button>
                </li>
              );
            })}
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
    <div
      className="overlay overlay-center"
      onMouseDown={(e) => e.target === e.currentTarget && controller.setProjectPicker(false)}
    >
      <section className="sheet" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        <header className="sheet-head">
          <h2 id={titleId}>Open folder</h2>
          <button
            type="button"
            className="icon-button"
            aria-label="Close"
            onClick={() => controller.setProjectPicker(false)}
          >
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
        <SetupNotice />
        <ProjectChooser autoFocus />
        <ReviewModes />
        <button type="button" className="link-button small welcome-settings" onClick={() => controller.openSettings()}>
          <Icon name="settings" size={12} /> Settings
        </button>
      </div>
    </div>
  );
}
