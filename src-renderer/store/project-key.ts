// A project open in the window is named by one string (its key: in `ui.openProjects`, `data.cwd`, the
// location, `data.elsewhere`): a folder of this machine is its absolute path; a folder on a configured
// environment is `NAME:/path/there`. What goes to the server is the folder and, for a remote one, the
// environment's name (`weftEnvironment`), which the host routes to that environment.
import type { Thread } from '../../src-preload/protocol';

export interface ProjectPlace {
  /** The configured environment the folder is on; null: this machine. */
  environment: string | null;
  /** The folder, absolute on its machine. */
  folder: string;
}

const REMOTE = /^([A-Za-z0-9][A-Za-z0-9._-]*):(\/.*)$/;

/** The key of `folder` on `environment` (null or absent: this machine). */
export function projectKey(environment: string | null | undefined, folder: string): string {
  return environment === null || environment === undefined ? folder : `${environment}:${folder}`;
}

/** Where a project key points. */
export function projectPlace(key: string): ProjectPlace {
  const remote = key.startsWith('/') ? null : REMOTE.exec(key);
  return remote === null
    ? { environment: null, folder: key }
    : { environment: remote[1] ?? null, folder: remote[2] ?? key };
}

/** What a request about the project adds to name its environment: nothing for this machine. */
export function environmentParam(key: string): { weftEnvironment?: string } {
  const { environment } = projectPlace(key);
  return environment === null ? {} : { weftEnvironment: environment };
}

/** A request's folder for the project key: the folder there, and the environment it is on when not here. */
export function folderParams(key: string): { cwd: string; weftEnvironment?: string } {
  const { environment, folder } = projectPlace(key);
  return environment === null ? { cwd: folder } : { cwd: folder, weftEnvironment: environment };
}

/** The key of the folder a thread works in, on its environment. */
export function threadFolderKey(thread: Pick<Thread, 'cwd' | 'weftEnvironment'>): string {
  return projectKey(thread.weftEnvironment, thread.cwd);
}

/** A folder of this machine the key names; null for a remote project (nothing here to read there). */
export function localFolder(key: string | null): string | null {
  if (key === null) return null;
  const place = projectPlace(key);
  return place.environment === null ? place.folder : null;
}

/**
 * A failure for people; on an environment, `what` ("Not saved") and its name come first, since the cause may
 * be the link to it (whose message says so: dropped, reconnecting, gave up).
 */
export function failureOn(environment: string | null | undefined, error: unknown, what: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return environment === null || environment === undefined ? message : `${what} on ${environment}: ${message}`;
}
