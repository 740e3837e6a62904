/**
 * Which hooks git may run for the user. Only `git commit` and `git push`, the commands whose hooks people
 * set up on purpose, run any; every other call gets `core.hooksPath=/dev/null`. Their hooks come from a
 * directory the sandboxed model cannot write: the one the user's own config names (system, global), or
 * else the repository's `hooks` folder in its git directory, which the sandbox keeps read-only. A
 * `core.hooksPath` that the repository's own config sets (a hostile clone, or tools such as husky that
 * point it into the work tree) is not used, and neither is a hooks directory inside the work tree: the
 * model can write there. `ignored` says so, for the commit box.
 */
import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isInside } from '../../util/workspace-file';
import { repositoryValue, userValue, type ConfigEntry } from './config-guard';

/** Hooks `git commit` may run (`post-rewrite` on amend, `pre-auto-gc` when it tidies up). */
export const COMMIT_HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-rewrite',
  'post-index-change',
  'reference-transaction',
  'pre-auto-gc',
] as const;

/** Hooks `git push` may run on this side. */
export const PUSH_HOOKS = ['pre-push', 'reference-transaction'] as const;

/** Where hooks may run from; `directory` null = none run. */
export interface HooksPlan {
  directory: string | null;
  /** Why a configured hooks path is not used, for people; null when nothing was set aside. */
  ignored: string | null;
}

async function real(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** Whether `dir` lies in the work tree `top` outside its `.git` folder: the model may write there. */
async function inWorkTree(top: string, dir: string): Promise<boolean> {
  const [realTop, realDir] = await Promise.all([real(top), real(dir)]);
  return isInside(realTop, realDir) && !isInside(join(realTop, '.git'), realDir);
}

/**
 * The hooks directory for commit and push in the repository whose work tree is `top` and whose common
 * git directory is `commonDir`, given its configuration `entries`.
 */
export async function planHooks(entries: readonly ConfigEntry[], top: string, commonDir: string): Promise<HooksPlan> {
  const notes: string[] = [];
  const repositorys = repositoryValue(entries, 'core.hookspath');
  if (repositorys !== null)
    notes.push(
      `this repository's own config sets core.hooksPath to ${repositorys}; Weft does not run hooks from a path the repository chose`,
    );
  const users = userValue(entries, 'core.hookspath');
  let directory: string | null = join(commonDir, 'hooks');
  if (users !== null) {
    const expanded = users.startsWith('~/') ? join(homedir(), users.slice(2)) : users;
    const absolute = resolve(top, expanded);
    if (await inWorkTree(top, absolute)) {
      notes.push(
        `your core.hooksPath ${users} is inside the work tree, which the agent can write; its hooks do not run`,
      );
      directory = null;
    } else directory = absolute;
  } else if (await inWorkTree(top, commonDir)) {
    notes.push(
      `the git directory ${commonDir} is inside the work tree, which the agent can write; its hooks do not run`,
    );
    directory = null;
  }
  return { directory, ignored: notes.length === 0 ? null : `${notes.join('; ')}.` };
}

/** The hooks among `names` that exist in `directory` and git would run (executable). */
export async function presentHooks(directory: string | null, names: readonly string[]): Promise<string[]> {
  if (directory === null) return [];
  const found = await Promise.all(
    names.map((name) =>
      access(join(directory, name), constants.X_OK).then(
        () => name,
        () => null,
      ),
    ),
  );
  return found.filter((n): n is string => n !== null);
}
