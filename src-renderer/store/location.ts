// What the page address and local storage remember: the project shown (`?cwd=`), the open thread
// (`?thread=`), the projects open in the window's sidebar and the recent projects. The token and other
// parameters are left as they are.

export interface PageLocation {
  cwd: string | null;
  threadId: string | null;
}

export function readLocation(href: string): PageLocation {
  const url = new URL(href);
  const cwd = url.searchParams.get('cwd');
  const threadId = url.searchParams.get('thread');
  return { cwd: cwd === '' ? null : cwd, threadId: threadId === '' ? null : threadId };
}

/** The same address with `cwd` and `thread` set (null removes them). */
export function withLocation(href: string, location: PageLocation): string {
  const url = new URL(href);
  for (const [key, value] of [
    ['cwd', location.cwd],
    ['thread', location.threadId],
  ] as const) {
    if (value === null) url.searchParams.delete(key);
    else url.searchParams.set(key, value);
  }
  return url.toString();
}

/** The part of `localStorage` used here. */
export type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem'>;

const RECENT_KEY = 'weft.recentProjects';
export const MAX_RECENT_PROJECTS = 10;

export function loadRecentProjects(storage: KeyValueStorage | null): string[] {
  if (storage === null) return [];
  try {
    const raw: unknown = JSON.parse(storage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(raw)
      ? raw.filter((p): p is string => typeof p === 'string').slice(0, MAX_RECENT_PROJECTS)
      : [];
  } catch {
    return [];
  }
}

/** Puts `cwd` first; returns the new list. */
export function rememberProject(storage: KeyValueStorage | null, recent: readonly string[], cwd: string): string[] {
  const next = [cwd, ...recent.filter((p) => p !== cwd)].slice(0, MAX_RECENT_PROJECTS);
  try {
    storage?.setItem(RECENT_KEY, JSON.stringify(next));
  } catch {
    // Storage full or disabled: the list still works for this session.
  }
  return next;
}

/** Drops `cwd` from the list; returns the new list. */
export function forgetProject(storage: KeyValueStorage | null, recent: readonly string[], cwd: string): string[] {
  const next = recent.filter((p) => p !== cwd);
  try {
    storage?.setItem(RECENT_KEY, JSON.stringify(next));
  } catch {
    // Storage full or disabled: the list still works for this session.
  }
  return next;
}

const OPEN_KEY = 'weft.openProjects';

/** The projects open in the sidebar, in the switcher's order (kept in the browser, like Recent). */
export function loadOpenProjects(storage: KeyValueStorage | null): string[] {
  if (storage === null) return [];
  try {
    const raw: unknown = JSON.parse(storage.getItem(OPEN_KEY) ?? '[]');
    return Array.isArray(raw) ? [...new Set(raw.filter((p): p is string => typeof p === 'string' && p !== ''))] : [];
  } catch {
    return [];
  }
}

export function saveOpenProjects(storage: KeyValueStorage | null, projects: readonly string[]): void {
  try {
    storage?.setItem(OPEN_KEY, JSON.stringify(projects));
  } catch {
    // Storage full or disabled: the projects stay open for this page.
  }
}
