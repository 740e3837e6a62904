// Whose settings the Settings dialog shows: those of the machine the shown project is on. A project on an
// environment (its key `NAME:/path`) has its providers, defaults, approvals, hooks, checkpoints and MCP
// servers there, so their requests name the environment (`weftEnvironment`), which the host routes to it;
// what belongs to this machine (the theme, this desktop's notifications) stays here and says so.
import { useMemo } from 'react';
import type { ReactNode } from 'react';
import { useWeft } from '../../store/app-context';
import { failureOn, projectPlace } from '../../store/project-key';

export interface SettingsPlace {
  /** The environment the shown project is on; null: this machine. */
  environment: string | null;
  /** The shown project's folder on its machine; null when no project is shown. */
  folder: string | null;
  /** What a request adds to go to that machine: nothing for this one. */
  on: { weftEnvironment?: string };
}

const HERE: SettingsPlace = { environment: null, folder: null, on: {} };

/** The place of the shown project (the same object while the project stays). */
export function useSettingsPlace(): SettingsPlace {
  const key = useWeft((s) => s.data.cwd);
  return useMemo(() => {
    if (key === null) return HERE;
    const { environment, folder } = projectPlace(key);
    return { environment, folder, on: environment === null ? {} : { weftEnvironment: environment } };
  }, [key]);
}

/** A failure for people, naming the environment first when there is one (see `failureOn`). */
export function failureText(place: SettingsPlace, error: unknown, what: string): string {
  return failureOn(place.environment, error, what);
}

/** A section's heading; on an environment, marked with it ("MCP servers on box" to a screen reader). */
export function SectionHeading({ id, children }: { id: string; children: ReactNode }) {
  const { environment } = useSettingsPlace();
  return (
    <h3 id={id}>
      {children}
      {environment !== null && (
        <>
          <span className="sr-only"> on </span>
          <span className="settings-env">{environment}</span>
        </>
      )}
    </h3>
  );
}
