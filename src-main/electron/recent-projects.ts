// The recent-projects list behind File → Open Recent (and the dock / jump list). Most recent first,
// no duplicates, capped. Pure apart from the injected JsonStore.
import { z } from 'zod';
import type { JsonStore } from './state-file';

export const RecentProject = z.object({
  /** Absolute, symlink-resolved folder path. */
  path: z.string().min(1),
  /** When it was last opened, ms since epoch. */
  openedAt: z.number(),
});
export type RecentProject = z.infer<typeof RecentProject>;

const RecentProjectsFile = z.object({ version: z.literal(1), projects: z.array(RecentProject) });

export interface RecentProjectsOptions {
  /** Entries kept; older ones drop off. */
  max?: number;
  now?: () => number;
  onInvalidFile?: (message: string) => void;
}

export const DEFAULT_MAX_RECENT_PROJECTS = 10;

export class RecentProjects {
  readonly #store: JsonStore;
  readonly #max: number;
  readonly #now: () => number;
  #projects: RecentProject[];

  private constructor(store: JsonStore, projects: RecentProject[], options: RecentProjectsOptions) {
    this.#store = store;
    this.#max = options.max ?? DEFAULT_MAX_RECENT_PROJECTS;
    this.#now = options.now ?? Date.now;
    this.#projects = normalize(projects, this.#max);
  }

  /** Reads the list; a missing or unreadable file starts empty (and is reported). */
  static async load(store: JsonStore, options: RecentProjectsOptions = {}): Promise<RecentProjects> {
    let projects: RecentProject[] = [];
    try {
      const raw = await store.read();
      if (raw !== undefined) {
        const parsed = RecentProjectsFile.safeParse(raw);
        if (parsed.success) projects = parsed.data.projects;
        else
          options.onInvalidFile?.(
            `Recent projects were not restored: the saved file has an unexpected shape (${parsed.error.issues[0]?.message ?? 'invalid'}).`,
          );
      }
    } catch (error) {
      options.onInvalidFile?.(
        `Recent projects were not restored: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return new RecentProjects(store, projects, options);
  }

  /** Most recent first. */
  list(): readonly RecentProject[] {
    return this.#projects;
  }

  /** Moves (or adds) `path` to the top. */
  async add(path: string): Promise<void> {
    this.#projects = normalize([{ path, openedAt: this.#now() }, ...this.#projects], this.#max);
    await this.#persist();
  }

  async remove(path: string): Promise<void> {
    const next = this.#projects.filter((project) => project.path !== path);
    if (next.length === this.#projects.length) return;
    this.#projects = next;
    await this.#persist();
  }

  /** Drops entries whose folder is gone (`exists` false); writes only if something was dropped. */
  async prune(exists: (path: string) => Promise<boolean>): Promise<string[]> {
    const checks = await Promise.all(
      this.#projects.map(async (project) => ({ project, keep: await exists(project.path) })),
    );
    const dropped = checks.filter((check) => !check.keep).map((check) => check.project.path);
    if (dropped.length === 0) return [];
    this.#projects = checks.filter((check) => check.keep).map((check) => check.project);
    await this.#persist();
    return dropped;
  }

  async clear(): Promise<void> {
    this.#projects = [];
    await this.#persist();
  }

  async #persist(): Promise<void> {
    await this.#store.write({ version: 1, projects: this.#projects });
  }
}

/** Newest first, first occurrence of each path wins, at most `max`. */
function normalize(projects: readonly RecentProject[], max: number): RecentProject[] {
  const seen = new Set<string>();
  const out: RecentProject[] = [];
  for (const project of projects) {
    if (seen.has(project.path)) continue;
    seen.add(project.path);
    out.push(project);
  }
  return out.slice(0, max);
}
