// Where a sandbox policy lets commands and patches write. Shared by the OS sandboxes (bwrap binds,
// Seatbelt rules) and by apply_patch, which runs in-process and enforces the same roots itself.
//
// workspace-write roots: the cwd, the configured `writableRoots` (relative ones resolved against the
// cwd), `/tmp` and `$TMPDIR` unless excluded; missing folders are left out and every root is
// symlink-free (realpath). Protected, read-only paths inside them: `.git` (folder, `gitdir:` pointer file
// and the folder it points to), `.agents` (when a folder), `.weft`, and the Weft home (config, rules)
// when it lies inside a root without containing one. In the cwd and the configured roots `.git`,
// `.agents` and `.weft` are protected even when missing, so a command cannot create one and arm it
// (`git init` + `core.fsmonitor` runs on the user's next `git status`); the sandbox mounts an empty
// read-only placeholder there (placeholders.ts: on disk only while commands run). A protected path
// inside any root is protected in every root that contains it. The caller may name more paths to protect
// when they exist (`extraProtected`): a session passes the `.weft` folders of the project config files
// the user trusted, wherever they are in the project, so a command cannot rewrite a nested
// `pkg/.weft/config.toml` the user accepted either (one it creates is held back by the trust check
// instead: see config/project-files.ts).
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { SandboxPolicy } from '../../../src-preload/protocol';
import { resolveWeftHome } from '../../config/home';

export interface WritableRoot {
  /** Absolute, symlink-free folder. */
  root: string;
  /** Absolute paths under `root` that stay read-only (both as written and symlink-resolved). */
  readOnlySubpaths: string[];
}

export const PROTECTED_NAMES = ['.git', '.agents', '.weft'] as const;

/** The writable roots of `policy` for a thread working in `cwd`. dangerFullAccess: all of `/`. */
export function writableRootsFor(
  policy: SandboxPolicy,
  cwd: string,
  env: Record<string, string | undefined>,
  extraProtected: readonly string[] = [],
): WritableRoot[] {
  switch (policy.type) {
    case 'dangerFullAccess':
      return [{ root: '/', readOnlySubpaths: [] }];
    case 'readOnly':
      return [];
    case 'workspaceWrite':
      break;
  }
  const workdir = realOrResolved(cwd);
  const candidates = [workdir, ...(policy.writableRoots ?? []).map((root) => resolve(workdir, root))];
  /** The cwd and the configured roots come first; the temp folders after them. */
  const configured = candidates.length;
  if (policy.excludeSlashTmp !== true) candidates.push('/tmp');
  const tmpdir = env['TMPDIR'];
  if (policy.excludeTmpdirEnvVar !== true && tmpdir !== undefined && isAbsolute(tmpdir)) candidates.push(tmpdir);

  const roots: string[] = [];
  /** The cwd and the configured roots: their missing `.git`/`.agents`/`.weft` are protected too. */
  const projectRoots = new Set<string>();
  candidates.forEach((candidate, i) => {
    const real = candidate === workdir ? workdir : realOrNull(candidate);
    if (real === null) return;
    if (!roots.includes(real)) roots.push(real);
    if (i < configured) projectRoots.add(real);
  });
  const protectedPaths = new Set<string>();
  for (const root of roots) {
    for (const path of protectedPathsIn(root, projectRoots.has(root))) protectedPaths.add(path);
  }
  for (const path of extraProtected) {
    if (lstatOrNull(path) === null) continue;
    protectedPaths.add(path);
    const real = realOrNull(path);
    if (real !== null) protectedPaths.add(real);
  }
  const weftHome = realOrNull(resolveWeftHome(env));
  if (weftHome !== null && !roots.some((root) => isInsidePath(root, weftHome))) protectedPaths.add(weftHome);
  return roots.map((root) => ({
    root,
    readOnlySubpaths: [...protectedPaths].filter((path) => isInsidePath(path, root) && path !== root).sort(),
  }));
}

function protectedPathsIn(root: string, isProjectRoot: boolean): string[] {
  const out: string[] = [];
  for (const name of PROTECTED_NAMES) {
    const path = join(root, name);
    const stat = lstatOrNull(path);
    if (stat === null) {
      if (isProjectRoot) out.push(path);
      continue;
    }
    const real = realOrNull(path);
    if (name === '.agents' && (real === null || !statSync(real).isDirectory())) continue;
    out.push(path);
    if (real !== null && real !== path) out.push(real);
    if (name === '.git' && real !== null && statSync(real).isFile()) {
      const gitdir = gitdirOf(real, root);
      if (gitdir !== null) out.push(gitdir);
    }
  }
  return out;
}

/** The folder a `.git` pointer file (`gitdir: <path>`) names, symlink-free; null when unreadable. */
function gitdirOf(file: string, root: string): string | null {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, 'utf8'));
    return match?.[1] === undefined ? null : realOrResolved(resolve(root, match[1]));
  } catch {
    return null;
  }
}

/**
 * Whether writing `absPath` stays inside a writable root and outside every protected path. Symlinks
 * are resolved the way a write would follow them (also dangling ones and those in missing parents'
 * ancestors), so a link inside the workspace pointing outside is outside.
 */
export function isPathWritable(absPath: string, roots: readonly WritableRoot[]): boolean {
  const lexical = resolve(absPath);
  const real = resolveForWrite(lexical);
  if (real === null) return false;
  const protectedPaths = roots.flatMap((r) => r.readOnlySubpaths);
  if (protectedPaths.some((p) => isInsidePath(lexical, p) || isInsidePath(real, p))) return false;
  return roots.some((r) => isInsidePath(real, r.root));
}

const MAX_SYMLINK_HOPS = 40;

/**
 * The path a write to `path` would reach after following symlinks; null for a symlink loop. Walks up with
 * one lstat per component (a component that is not a symlink resolves to its resolved parent plus its
 * name). `dirCache` remembers resolved folders across calls of one operation (many files in few folders);
 * the writer opens the folder it finally uses without following symlinks, so a folder swapped for a link
 * after it was cached makes that open fail rather than write elsewhere.
 */
export function resolveForWrite(path: string, dirCache?: Map<string, string | null>): string | null {
  let hops = 0;
  const walk = (p: string, isDir: boolean): string | null => {
    if (isDir) {
      const known = dirCache?.get(p);
      if (known !== undefined) return known;
    }
    let result: string | null;
    const stat = lstatOrNull(p);
    if (stat?.isSymbolicLink() === true) {
      result = ++hops > MAX_SYMLINK_HOPS ? null : walk(resolve(dirname(p), readlinkSync(p)), isDir);
    } else {
      const parent = dirname(p);
      if (parent === p) return p;
      const resolvedParent = walk(parent, true);
      result = resolvedParent === null ? null : join(resolvedParent, basename(p));
    }
    if (isDir) dirCache?.set(p, result);
    return result;
  };
  return walk(resolve(path), false);
}

/** Whether `path` is `root` or below it (both absolute and normalised). */
export function isInsidePath(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${'/'}`) && !isAbsolute(rel));
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function realOrResolved(path: string): string {
  return realOrNull(path) ?? resolve(path);
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    // A missing entry (every file a patch adds) answers undefined instead of building an exception.
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
