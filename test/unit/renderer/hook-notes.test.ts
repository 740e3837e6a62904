import { describe, expect, it } from 'vitest';
import { hookNotes } from '../../../src-renderer/views/changes/hook-notes';

describe('hookNotes', () => {
  it('names the hooks commit and push will run, and a hooks path set aside', () => {
    expect(
      hookNotes(
        {
          directory: '/p/.git/hooks',
          commit: ['pre-commit', 'commit-msg', 'post-rewrite'],
          push: ['pre-push'],
          ignored: "this repository's own config sets core.hooksPath to .husky/_.",
        },
        false,
      ),
    ).toEqual({
      commit: "This repository's pre-commit and commit-msg hooks will run when you commit (from /p/.git/hooks).",
      push: "This repository's pre-push hook will run when you push (from /p/.git/hooks).",
      ignored: "Hooks not run: this repository's own config sets core.hooksPath to .husky/_.",
    });
  });

  it('counts post-rewrite only when amending, and says nothing when no hook runs', () => {
    const hooks = { directory: '/p/.git/hooks', commit: ['post-rewrite'], push: [], ignored: null };
    expect(hookNotes(hooks, true).commit).toBe(
      "This repository's post-rewrite hook will run when you commit (from /p/.git/hooks).",
    );
    expect(hookNotes(hooks, false)).toEqual({ commit: null, push: null, ignored: null });
  });
});
