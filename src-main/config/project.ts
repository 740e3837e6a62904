/**
 * Project config: `<dir>/.weft/config.toml` for every directory from the project root down to the
 * cwd (closer to the cwd wins). The root is the nearest ancestor of the cwd (the cwd included)
 * holding one of `project_root_markers` (default `.git`; a `.git` file, as in worktrees, counts),
 * or the cwd itself when none does. The markers come from the user config and `-c` flags only.
 *
 * Project files apply only when the user config says `[projects."<root>"] trust_level = "trusted"`
 * (the root realpath'd) AND records the file's content hash in that table's `trusted_files` (path
 * relative to the root → `sha256:<hex>`): a file that is new or changed since the user trusted the
 * project could have been written by the model, so it waits for the user's yes (project-files.ts).
 * A project file may not set `projects` (a project cannot trust itself) or `project_root_markers`:
 * both are dropped with a warning.
 */
import { realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { deletePath, getPath, isTable, mergeDocuments } from './document';
import type { TomlDocument } from './document';
import type { ConfigLayer } from './layers';
import type { ProjectConfigFile, TrustRecord } from './project-files';
import { TRUST_LEVELS } from './schema';
import { hasMarker } from '../util/markers';

export const DEFAULT_PROJECT_ROOT_MARKERS: readonly string[] = ['.git'];
/** The folder of a project's config, beside the project's files. */
export const PROJECT_CONFIG_DIR = '.weft';

export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** What the loader found about the project of the cwd. */
export interface ProjectTrust {
  /** The project root, realpath'd: the key of `[projects."<root>"]`. */
  root: string;
  /** From `trust_level`: true = trusted, false = untrusted, null = never decided. */
  trusted: boolean | null;
  /** Project config files that exist but were not applied (project not trusted, or file not yet accepted). */
  skippedFiles: string[];
  /** Every project config file from the root down to the cwd, root first, with whether it applied and why not. */
  files: ProjectConfigFile[];
  /**
   * The `.weft` folders of every file the user accepted in this project (anywhere below the root, not
   * only on the way to the cwd): the sandbox keeps those that exist read-only, like the root's.
   */
  trustedConfigDirs: string[];
}

/** The path with symlinks resolved, or just made absolute when it does not exist. */
export async function realpathOr(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The nearest ancestor of `cwd` (realpath'd, itself included) holding a marker; `cwd` when none does. */
export async function findProjectRoot(cwd: string, markers: readonly string[]): Promise<string> {
  const start = await realpathOr(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    for (const marker of markers) if (await hasMarker(dir, marker)) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/** The existing `.weft/config.toml` files from `root` down to `cwd`, root first; WEFT_HOME's own file is not one. */
export async function projectConfigFiles(root: string, cwd: string, weftHome: string): Promise<string[]> {
  const home = await realpathOr(weftHome);
  const dirs: string[] = [];
  for (let dir = await realpathOr(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  const files: string[] = [];
  for (const dir of dirs) {
    const configDir = join(dir, PROJECT_CONFIG_DIR);
    if ((await realpathOr(configDir)) === home) continue;
    const file = join(configDir, 'config.toml');
    if (await exists(file)) files.push(file);
  }
  return files;
}

const markersSchema = z.array(z.string());

/** `project_root_markers` from the user layer and the `-c` flags (the flags win). */
export function rootMarkers(user: ConfigLayer, override: ConfigLayer | null): readonly string[] {
  for (const layer of [override, user]) {
    const parsed = markersSchema.safeParse(layer === null ? undefined : getPath(layer.doc, ['project_root_markers']));
    if (parsed.success) return parsed.data;
  }
  return DEFAULT_PROJECT_ROOT_MARKERS;
}

const projectsSchema = z.record(
  z.string(),
  z
    .object({
      trust_level: z.enum(TRUST_LEVELS).optional(),
      trusted_files: z.record(z.string(), z.string()).optional(),
    })
    .loose(),
);

/** The trust record the user layer and `-c` flags give `root`; keys are compared after realpath. */
export async function trustRecordOf(
  user: ConfigLayer,
  override: ConfigLayer | null,
  root: string,
): Promise<TrustRecord> {
  const tables = [user, override].map((layer) => (layer === null ? undefined : getPath(layer.doc, ['projects'])));
  const merged = tables.reduce<TomlDocument>((doc, table) => (isTable(table) ? mergeDocuments(doc, table) : doc), {});
  const parsed = projectsSchema.safeParse(merged);
  if (!parsed.success) return { level: null, files: null };
  let entry = parsed.data[root];
  if (entry?.trust_level === undefined) {
    for (const [path, candidate] of Object.entries(parsed.data)) {
      if (candidate.trust_level !== undefined && (await realpathOr(path)) === root) {
        entry = candidate;
        break;
      }
    }
  }
  return { level: entry?.trust_level ?? null, files: entry?.trusted_files ?? null };
}

/** A project layer without the keys a project may not set, and the warnings about them (in file order). */
export function restrictProjectLayer(layer: ConfigLayer, userFile: string): { layer: ConfigLayer; warnings: string[] } {
  const found: Array<{ line: number; text: string }> = [];
  const doc: TomlDocument = { ...layer.doc };
  const projects = doc['projects'];
  if (projects !== undefined) {
    // `[projects."/x"]` headers write no `projects` key of their own: point at the first project.
    const first = isTable(projects) ? Object.keys(projects)[0] : undefined;
    const place = layer.place(first === undefined ? ['projects'] : ['projects', first]);
    const text = `${place.atLine}: \`projects\` is ignored in a project's config: a project cannot change trust; trust it in ${userFile} or with \`weft config trust\``;
    found.push({ line: place.line ?? Infinity, text });
    deletePath(doc, ['projects']);
  }
  if (doc['project_root_markers'] !== undefined) {
    const place = layer.place(['project_root_markers']);
    const text = `${place.atLine}: \`project_root_markers\` is ignored in a project's config (it decides where the project starts); set it in ${userFile}`;
    found.push({ line: place.line ?? Infinity, text });
    deletePath(doc, ['project_root_markers']);
  }
  found.sort((a, b) => (a.line === b.line ? 0 : a.line < b.line ? -1 : 1));
  return { layer: { ...layer, doc }, warnings: found.map((f) => f.text) };
}
