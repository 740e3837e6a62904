// Handoff (Weft): moving a worktree thread's work between its git worktree and the project's own checkout
// ("local"), shown first (`weft/worktree/handoff/preview`), then written (`weft/worktree/handoff`).
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';

/**
 * `toLocal`: the thread's work — everything its worktree holds that differs from the commit it was made
 * from, committed or not, untracked files included — is brought to the local checkout. `toWorktree`: the
 * local checkout's uncommitted changes (against its HEAD, untracked files included) are brought to the
 * thread's worktree. Files git ignores never move.
 */
export const WeftHandoffDirection = lazySchema(() => z.enum(['toLocal', 'toWorktree']));
export type WeftHandoffDirection = z.infer<typeof WeftHandoffDirection>;

/** One side of a file: nothing there, a file (its text; null when binary or too large to show), a symlink. */
export const WeftHandoffSide = lazySchema(() =>
  z.object({
    kind: z.enum(['absent', 'file', 'symlink', 'other']),
    /** A file's text or a symlink's target; null for `absent`, `other`, a binary file or one too large to show. */
    text: z.string().nullable(),
  }),
);
export type WeftHandoffSide = z.infer<typeof WeftHandoffSide>;

/**
 * One changed path, repository-relative (`/`-separated), and what a handoff does with it:
 * - `apply`: the destination has it as the base had it: it becomes the source's version;
 * - `merge`: both sides changed it, in different lines: the destination gets both (`result`);
 * - `conflict`: both sides changed it and the changes cannot be combined (the same lines, a binary
 *   file, one side deleted it): nothing is written there unless the request says which side to take;
 * - `same`: the destination already has the source's version;
 * - `skipped`: a handoff cannot carry it (`reason`: a submodule, a folder in the way, too large…).
 * `local` and `worktree` are the file as it is now in the local checkout and in the worktree.
 */
export const WeftHandoffFile = lazySchema(() =>
  z.object({
    path: z.string(),
    status: z.enum(['apply', 'merge', 'conflict', 'same', 'skipped']),
    /** What the destination's file goes through: added, deleted or changed (for `apply` and `merge`). */
    change: z.enum(['add', 'delete', 'update']),
    local: WeftHandoffSide,
    worktree: WeftHandoffSide,
    /** The destination's text after a `merge`; null otherwise. */
    result: z.string().nullable(),
    binary: z.boolean(),
    /** For people: why a file is a conflict or skipped; null otherwise. */
    reason: z.string().nullable(),
  }),
);
export type WeftHandoffFile = z.infer<typeof WeftHandoffFile>;

export const WeftWorktreeHandoffPreviewParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    direction: WeftHandoffDirection,
  }),
);
export type WeftWorktreeHandoffPreviewParams = z.infer<typeof WeftWorktreeHandoffPreviewParams>;

/**
 * What a handoff would do; nothing is written. `local` and `worktree` are the two checkouts' top folders,
 * `base` the commit the changes are counted from (the worktree's base commit for `toLocal`, the local
 * HEAD for `toWorktree`). `fingerprint` names this preview: a handoff sent with it writes nothing if
 * either side changed since.
 */
export const WeftWorktreeHandoffPreviewResult = lazySchema(() =>
  z.object({
    direction: WeftHandoffDirection,
    local: z.string(),
    worktree: z.string(),
    branch: z.string(),
    base: z.string(),
    files: z.array(WeftHandoffFile),
    fingerprint: z.string(),
  }),
);
export type WeftWorktreeHandoffPreviewResult = z.infer<typeof WeftWorktreeHandoffPreviewResult>;

/**
 * For one file of the preview: which side's version the destination ends with. Required for a conflict.
 * For an `apply` or `merge` file, the destination's side leaves that file out of the handoff, and the
 * source's side of a `merge` replaces the destination's changes too.
 */
export const WeftHandoffResolution = lazySchema(() =>
  z.object({ path: z.string().min(1), take: z.enum(['local', 'worktree']) }),
);
export type WeftHandoffResolution = z.infer<typeof WeftHandoffResolution>;

/**
 * Writes the handoff: each `apply` and `merge` file, and each conflict, as `resolutions` says (taking the
 * destination's side keeps its file as it is; taking the source's side over a file the destination changed
 * replaces it, and the replaced version is kept among the Changes panel's discards). A conflict without a resolution refuses the whole handoff with
 * -32010 (`data.conflicts`), nothing written; so does a `fingerprint` that no longer matches (`data.stale`).
 * The files are written all at once (staged, then renamed into place; a crash half way is finished at the
 * next start). The source is left as it was unless `move`: then what was brought over leaves it — its
 * uncommitted changes to those files are taken back to its HEAD (for `toLocal`, the thread's commits stay
 * on its branch) — and the thread moves too: its next turns work in the destination (`threadCwd`), its
 * `weftWorktree` kept so it can be handed back. Refused while a turn runs in the thread.
 */
export const WeftWorktreeHandoffParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    direction: WeftHandoffDirection,
    fingerprint: z.string().nullish(),
    resolutions: z.array(WeftHandoffResolution).nullish(),
    move: z.boolean().nullish(),
  }),
);
export type WeftWorktreeHandoffParams = z.infer<typeof WeftWorktreeHandoffParams>;

/** `data` of a refused handoff (-32010): the conflicts left without a resolution; `stale`: changed since the preview. */
export const WeftHandoffConflictData = lazySchema(() =>
  z.object({ conflicts: z.array(z.string()), stale: z.boolean() }),
);
export type WeftHandoffConflictData = z.infer<typeof WeftHandoffConflictData>;

/**
 * What was done: the files written (applied, merged, or overwritten by a resolution), those a resolution
 * kept as they were, those that could not be written (and why), and, with `move`, the source files taken back.
 * `threadCwd`: with `move`, the thread moved with its work, and this is the folder it works in from now on
 * (in the local checkout for `toLocal`, in its worktree for `toWorktree`; its `Thread.cwd`); null without.
 */
export const WeftWorktreeHandoffResult = lazySchema(() =>
  z.object({
    direction: WeftHandoffDirection,
    written: z.array(z.string()),
    merged: z.array(z.string()),
    overwritten: z.array(z.string()),
    kept: z.array(z.string()),
    notWritten: z.array(z.object({ path: z.string(), reason: z.string() })),
    moved: z.array(z.string()),
    threadCwd: z.string().nullable(),
  }),
);
export type WeftWorktreeHandoffResult = z.infer<typeof WeftWorktreeHandoffResult>;

/**
 * Removes a worktree thread's worktree (`git worktree remove --force`; its branch stays, so what was
 * committed there is kept) — only when `path` is the worktree the thread was started in, as its
 * session_meta records; the thread itself is left as it is (archive it with `thread/archive`). What the
 * review inbox's Discard does on the environment of a remote run. Refused while a turn runs in the thread.
 * `removed` false: the folder was gone already.
 */
export const WeftWorktreeRemoveParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    path: z.string().min(1),
    /** The environment the thread lives on (see `WeftEnvironmentName`), for a host that has not seen it. */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftWorktreeRemoveParams = z.infer<typeof WeftWorktreeRemoveParams>;
export const WeftWorktreeRemoveResult = lazySchema(() => z.object({ removed: z.boolean() }));
export type WeftWorktreeRemoveResult = z.infer<typeof WeftWorktreeRemoveResult>;
