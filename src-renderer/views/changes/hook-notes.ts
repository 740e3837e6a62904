// What the commit box says about the hooks Weft's commit and push will run (see `GitHooks`).
import type { GitHooks } from '../../../src-preload/protocol';

function names(list: readonly string[]): string {
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')} and ${list.at(-1) ?? ''}`;
}

/**
 * One line each for commit, push and a hooks path set aside; null when there is nothing to say.
 * `post-rewrite` runs only when amending.
 */
export function hookNotes(
  hooks: GitHooks,
  amend: boolean,
): { commit: string | null; push: string | null; ignored: string | null } {
  const where = hooks.directory === null ? '' : ` (from ${hooks.directory})`;
  const commit = hooks.commit.filter((h) => amend || h !== 'post-rewrite');
  const sentence = (list: readonly string[], when: string) =>
    list.length === 0
      ? null
      : `This repository's ${names(list)} hook${list.length === 1 ? '' : 's'} will run ${when}${where}.`;
  return {
    commit: sentence(commit, 'when you commit'),
    push: sentence(hooks.push, 'when you push'),
    ignored: hooks.ignored === null ? null : `Hooks not run: ${hooks.ignored}`,
  };
}
