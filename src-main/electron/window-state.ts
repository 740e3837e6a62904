// Size and position of each project's window, remembered across launches, and where to put a window
// so that it is visible on the displays present now. Pure apart from the injected JsonStore.
import { z } from 'zod';
import type { JsonStore } from './state-file';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const WindowState = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  maximized: z.boolean(),
  fullScreen: z.boolean(),
});
export type WindowState = z.infer<typeof WindowState>;

const WindowStateFile = z.object({
  version: z.literal(1),
  /** Project folder (absolute) → its window's last state, with when it was saved (ms since epoch). */
  projects: z.record(z.string(), z.object({ state: WindowState, savedAt: z.number() })),
});
type WindowStateFile = z.infer<typeof WindowStateFile>;

/** Where and how big to create a window; no x/y = let the OS center it. */
export interface Placement {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
  fullScreen: boolean;
}

/** How much of a saved window must overlap a display for the saved position to be kept. */
export const MIN_VISIBLE_WIDTH = 100;
export const MIN_VISIBLE_HEIGHT = 40;

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

/**
 * Places a window from its saved state on today's displays (`workAreas`, primary first). A saved
 * window that no longer overlaps any display enough (a monitor was unplugged) keeps its size, shrunk to
 * fit, and is centered on the primary display. A window never comes out larger than its display.
 */
export function placeWindow(
  saved: WindowState | undefined,
  workAreas: readonly Rect[],
  defaults: { width: number; height: number },
): Placement {
  const primary = workAreas[0];
  const fit = (size: { width: number; height: number }, area: Rect | undefined) => ({
    width: area === undefined ? size.width : Math.min(size.width, area.width),
    height: area === undefined ? size.height : Math.min(size.height, area.height),
  });
  if (saved === undefined) return { ...fit(defaults, primary), maximized: false, fullScreen: false };
  const flags = { maximized: saved.maximized, fullScreen: saved.fullScreen };
  const home = workAreas.find((area) => {
    const shared = overlap(saved, area);
    return (
      shared.width >= Math.min(MIN_VISIBLE_WIDTH, saved.width) &&
      shared.height >= Math.min(MIN_VISIBLE_HEIGHT, saved.height)
    );
  });
  if (home === undefined) return { ...fit(saved, primary), ...flags };
  const size = fit(saved, home);
  const x = Math.min(Math.max(saved.x, home.x), home.x + home.width - size.width);
  const y = Math.min(Math.max(saved.y, home.y), home.y + home.height - size.height);
  return { x, y, ...size, ...flags };
}

export interface WindowStateStoreOptions {
  /** Projects remembered at most; the least recently saved are forgotten first. */
  maxProjects?: number;
  now?: () => number;
  /** Told when the file on disk was unreadable and was ignored. */
  onInvalidFile?: (message: string) => void;
}

export class WindowStateStore {
  readonly #store: JsonStore;
  readonly #maxProjects: number;
  readonly #now: () => number;
  #file: WindowStateFile;
  #lastWrite: Promise<void> = Promise.resolve();

  private constructor(store: JsonStore, file: WindowStateFile, options: WindowStateStoreOptions) {
    this.#store = store;
    this.#file = file;
    this.#maxProjects = options.maxProjects ?? 50;
    this.#now = options.now ?? Date.now;
  }

  /** Reads the saved states; a missing or unreadable file starts empty (and is reported). */
  static async load(store: JsonStore, options: WindowStateStoreOptions = {}): Promise<WindowStateStore> {
    const empty: WindowStateFile = { version: 1, projects: {} };
    let file = empty;
    try {
      const raw = await store.read();
      if (raw !== undefined) {
        const parsed = WindowStateFile.safeParse(raw);
        if (parsed.success) file = parsed.data;
        else
          options.onInvalidFile?.(
            `Window positions were not restored: the saved file has an unexpected shape (${parsed.error.issues[0]?.message ?? 'invalid'}).`,
          );
      }
    } catch (error) {
      options.onInvalidFile?.(
        `Window positions were not restored: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return new WindowStateStore(store, file, options);
  }

  get(projectPath: string): WindowState | undefined {
    return Object.hasOwn(this.#file.projects, projectPath) ? this.#file.projects[projectPath]?.state : undefined;
  }

  /** Remembers `state` for the project and writes the file. */
  async save(projectPath: string, state: WindowState): Promise<void> {
    const checked = WindowState.parse(state);
    const entries = Object.entries(this.#file.projects).filter(([path]) => path !== projectPath);
    entries.push([projectPath, { state: checked, savedAt: this.#now() }]);
    entries.sort((a, b) => b[1].savedAt - a[1].savedAt);
    this.#file = { version: 1, projects: Object.fromEntries(entries.slice(0, this.#maxProjects)) };
    const write = this.#store.write(this.#file);
    this.#lastWrite = write.catch(() => undefined);
    await write;
  }

  /** Resolves when every save started so far has reached the disk (or failed); never rejects. */
  flush(): Promise<void> {
    return this.#lastWrite;
  }
}
