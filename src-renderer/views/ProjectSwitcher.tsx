// The projects open in the window, at the top of the sidebar: the one shown (with its folder), the others
// under it, each with how many of its threads need the person; clicking one shows it, × takes it out of
// the window (its threads go on). Open folder adds a project; the sidebar can be hidden from here too.
import { useShallow } from 'zustand/react/shallow';
import { baseName } from '../components/format';
import { Icon } from '../components/Icon';
import { needsYouCount } from '../store/board';
import { projectPlace } from '../store/project-key';
import { useApp, useWeft } from '../store/app-context';
import { SHORTCUT_MOD } from './shortcuts';

function ProjectItem({ path, current, count }: { path: string; current: boolean; count: number }) {
  const { controller } = useApp();
  // A project on an environment beside this machine says so in its key; with `--env`, the server's all are.
  const served = useWeft((s) => s.ui.environment);
  const place = projectPlace(path);
  const environment = place.environment ?? served;
  const name = baseName(place.folder);
  const needing = count === 1 ? '1 thread needs you' : `${count} threads need you`;
  return (
    <li className={`project-item ${current ? 'is-current' : ''}`}>
      <button
        type="button"
        className={current ? 'project project-switch' : 'project-switch'}
        title={environment === null ? place.folder : `${place.folder} on ${environment}`}
        aria-current={current ? 'true' : undefined}
        aria-label={`${name}${environment === null ? '' : ` on ${environment}`}${count > 0 ? `, ${needing}` : ''}`}
        onClick={() => controller.showProject(path)}
      >
        {/* The count sits on the icon's corner, so the name keeps the line's width (the label says it). */}
        <span className="project-icon" aria-hidden="true" title={count > 0 ? needing : undefined}>
          <Icon name="folder" size={current ? 14 : 12} />
          {count > 0 && <span className="needs-count">{count}</span>}
        </span>
        <span className="project-text">
          <span className="project-name">{name}</span>
          {/* The path is ellipsized from the left (rtl); the marks keep its slashes in place. */}
          {current && <span className="project-path">{`\u200E${place.folder}\u200E`}</span>}
        </span>
        {environment !== null && (
          <span className="project-env" title={`Runs on the environment ${environment}`}>
            {environment}
          </span>
        )}
      </button>
      <button
        type="button"
        className="icon-button project-close"
        aria-label={`Close ${name}`}
        title={`Close ${name} (only here: its threads go on)`}
        onClick={() => controller.closeProject(path)}
      >
        <Icon name="x" size={12} />
      </button>
    </li>
  );
}

export function ProjectSwitcher({ onHide }: { onHide: () => void }) {
  const { controller, desktop } = useApp();
  const cwd = useWeft((s) => s.data.cwd);
  const projects = useWeft((s) => s.ui.openProjects);
  const counts = useWeft(useShallow((s) => s.ui.openProjects.map((project) => needsYouCount(s.data, project))));
  const openFolder = async (): Promise<void> => {
    if (desktop === null) {
      controller.setProjectPicker(true);
      return;
    }
    const folder = await desktop.chooseFolder();
    if (folder !== null) controller.openProject(folder);
  };
  // The project shown first, then the others in the order they were opened.
  const order = [...projects.filter((p) => p === cwd), ...projects.filter((p) => p !== cwd)];
  return (
    <div className="sidebar-head">
      <nav className="projects" aria-label="Projects">
        <ul className="project-list">
          {order.map((path) => (
            <ProjectItem key={path} path={path} current={path === cwd} count={counts[projects.indexOf(path)] ?? 0} />
          ))}
        </ul>
      </nav>
      {/* Drawn over the end of the first line, which keeps the room for them. */}
      <div className="sidebar-head-buttons">
        <button
          type="button"
          className="icon-button"
          aria-label="Open folder"
          title="Open folder (it joins the projects here)"
          onClick={() => void openFolder()}
        >
          <Icon name="folder" />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Hide sidebar"
          aria-keyshortcuts="Control+B"
          title={`Hide sidebar (${SHORTCUT_MOD}B)`}
          onClick={onHide}
        >
          <Icon name="sidebar" />
        </button>
      </div>
    </div>
  );
}
