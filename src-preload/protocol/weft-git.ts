// Weft's own git requests (`weft/git/*`): the Changes panel's transport. Every request names the folder
// it works on (`cwd`, absolute); the repository is the one holding that folder. Errors from git are
// answered as `WeftGitErrorCodes.GitFailed` with the command and git's own message, verbatim. With
// `weftEnvironment` the folder is on that environment, and a host that reaches it passes the request there.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';

export const WeftGitErrorCodes = {
  /** A git command failed: `data` = `{command: string[], exitCode: number|null, stderr: string}`. */
  GitFailed: -32020,
  /** `weft/git/checkout` with uncommitted changes and no `allowDirty`: `data.files` lists them. */
  UncommittedChanges: -32021,
  /** `weft/git/discard/restore` would overwrite a file changed since the discard: `data.path`. */
  RestoreConflict: -32022,
  /** The folder is not in a git repository (or git is not installed). */
  NotARepository: -32023,
} as const;

const AbsolutePath = lazySchema(() =>
  z
    .string()
    .min(1)
    .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), { message: 'must be an absolute path' }),
);
/** A path relative to the repository root, `/`-separated, as git prints it. */
const RepoPath = lazySchema(() =>
  z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
      message: 'must be a path inside the repository',
    }),
);

export const GitChangeKind = lazySchema(() =>
  z.enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'typeChanged', 'unmerged']),
);
export type GitChangeKind = z.infer<typeof GitChangeKind>;

/** One path of `git status`. `staged`/`unstaged`: the change in the index / the work tree, null = none. */
export const GitFileStatus = lazySchema(() =>
  z.object({
    path: z.string(),
    /** The old path of a rename or copy in the index; else null. */
    origPath: z.string().nullable(),
    staged: GitChangeKind.nullable(),
    unstaged: GitChangeKind.nullable(),
    untracked: z.boolean(),
  }),
);
export type GitFileStatus = z.infer<typeof GitFileStatus>;

export const WeftGitStatusParams = lazySchema(() =>
  z.object({ cwd: AbsolutePath, weftEnvironment: WeftEnvironmentName }),
);
export type WeftGitStatusParams = z.infer<typeof WeftGitStatusParams>;

/**
 * The hooks Weft's commit and push run: only from `directory` (null = none run), the one the user's own
 * git config names or else the repository's git directory's `hooks`. `commit` / `push`: the executable
 * hooks there that `git commit` / `git push` would run. `ignored`: why a configured hooks path is not
 * used (e.g. one the repository's own config sets), for people; null when nothing was set aside.
 */
export const GitHooks = lazySchema(() =>
  z.object({
    directory: z.string().nullable(),
    commit: z.array(z.string()),
    push: z.array(z.string()),
    ignored: z.string().nullable(),
  }),
);
export type GitHooks = z.infer<typeof GitHooks>;

/**
 * `enabled` false: no repository holds `cwd` (or git is missing); `reason` says which, every other field
 * is empty. `branch` null = detached HEAD; `headSha` null = no commit yet. `remotes`: configured remote
 * names (push is offered when there is one); `upstream`: e.g. `origin/main`, null when none is set.
 */
export const WeftGitStatusResult = lazySchema(() =>
  z.object({
    enabled: z.boolean(),
    reason: z.string().nullable(),
    root: z.string().nullable(),
    branch: z.string().nullable(),
    headSha: z.string().nullable(),
    upstream: z.string().nullable(),
    ahead: z.number().int().nonnegative(),
    behind: z.number().int().nonnegative(),
    remotes: z.array(z.string()),
    files: z.array(GitFileStatus),
    hooks: GitHooks,
  }),
);
export type WeftGitStatusResult = z.infer<typeof WeftGitStatusResult>;

/** Which side of a file a diff shows: `unstaged` = index → work tree, `staged` = HEAD → index, `untracked` = nothing → work tree. */
export const GitDiffArea = lazySchema(() => z.enum(['unstaged', 'staged', 'untracked']));
export type GitDiffArea = z.infer<typeof GitDiffArea>;

export const WeftGitDiffParams = lazySchema(() =>
  z.object({ cwd: AbsolutePath, weftEnvironment: WeftEnvironmentName, path: RepoPath, area: GitDiffArea }),
);
export type WeftGitDiffParams = z.infer<typeof WeftGitDiffParams>;

/** A hunk of a file's diff; `index` is what per-hunk requests name. Lines are 1-based; a count may be 0. */
export const GitHunk = lazySchema(() =>
  z.object({
    index: z.number().int().nonnegative(),
    header: z.string(),
    oldStart: z.number().int().nonnegative(),
    oldLines: z.number().int().nonnegative(),
    newStart: z.number().int().nonnegative(),
    newLines: z.number().int().nonnegative(),
  }),
);
export type GitHunk = z.infer<typeof GitHunk>;

/**
 * The diff of one file in one area: git's unified diff, its hunks, and both sides' text for a diff
 * editor (`original` null = the file is absent on that side). `binary`: no text diff; both sides null.
 */
export const WeftGitDiffResult = lazySchema(() =>
  z.object({
    path: z.string(),
    area: GitDiffArea,
    diff: z.string(),
    hunks: z.array(GitHunk),
    original: z.string().nullable(),
    modified: z.string().nullable(),
    binary: z.boolean(),
  }),
);
export type WeftGitDiffResult = z.infer<typeof WeftGitDiffResult>;

/**
 * `hunks` absent or null = the whole file; else the indices of `weft/git/diff`'s hunks for the same area
 * (`unstaged` for stage and discard, `staged` for unstage). `expectedDiff`: the diff those indices came
 * from; when the file has changed since, the request fails instead of acting on other lines.
 */
export const WeftGitPathParams = lazySchema(() =>
  z.object({
    cwd: AbsolutePath,
    weftEnvironment: WeftEnvironmentName,
    path: RepoPath,
    hunks: z.array(z.number().int().nonnegative()).nullish(),
    expectedDiff: z.string().nullish(),
  }),
);
export type WeftGitPathParams = z.infer<typeof WeftGitPathParams>;

export const WeftGitPathResult = lazySchema(() => z.object({}));
export type WeftGitPathResult = z.infer<typeof WeftGitPathResult>;

/** Content a discard took away, kept in Weft's checkpoint store until restored. */
export const GitDiscardRecord = lazySchema(() =>
  z.object({
    id: z.string(),
    root: z.string(),
    path: z.string(),
    /** `file` = the whole file's changes, `hunks` = some hunks, `untracked` = an untracked file removed. */
    kind: z.enum(['file', 'hunks', 'untracked']),
    /** Unix milliseconds. */
    createdAt: z.number().int().nonnegative(),
    /** Lines the discard removed or put back (for a list). */
    summary: z.string(),
    restored: z.boolean(),
  }),
);
export type GitDiscardRecord = z.infer<typeof GitDiscardRecord>;

export const WeftGitDiscardResult = lazySchema(() => z.object({ discard: GitDiscardRecord }));
export type WeftGitDiscardResult = z.infer<typeof WeftGitDiscardResult>;

export const WeftGitDiscardListParams = lazySchema(() =>
  z.object({ cwd: AbsolutePath, weftEnvironment: WeftEnvironmentName }),
);
export type WeftGitDiscardListParams = z.infer<typeof WeftGitDiscardListParams>;

/** Newest first, restored ones included (marked). */
export const WeftGitDiscardListResult = lazySchema(() => z.object({ discards: z.array(GitDiscardRecord) }));
export type WeftGitDiscardListResult = z.infer<typeof WeftGitDiscardListResult>;

/** `force`: restore even if the file changed since the discard (the newer content is then discarded too, and kept). */
export const WeftGitDiscardRestoreParams = lazySchema(() =>
  z.object({
    cwd: AbsolutePath,
    weftEnvironment: WeftEnvironmentName,
    id: z.string().min(1),
    force: z.boolean().nullish(),
  }),
);
export type WeftGitDiscardRestoreParams = z.infer<typeof WeftGitDiscardRestoreParams>;

export const WeftGitDiscardRestoreResult = lazySchema(() => z.object({ discard: GitDiscardRecord }));
export type WeftGitDiscardRestoreResult = z.infer<typeof WeftGitDiscardRestoreResult>;

/** `amend`: replace the last commit (its message by `message`). */
export const WeftGitCommitParams = lazySchema(() =>
  z.object({
    cwd: AbsolutePath,
    weftEnvironment: WeftEnvironmentName,
    message: z.string().refine((m) => m.trim() !== '', { message: 'the commit message is empty' }),
    amend: z.boolean().nullish(),
  }),
);
export type WeftGitCommitParams = z.infer<typeof WeftGitCommitParams>;

export const WeftGitCommitResult = lazySchema(() =>
  z.object({ sha: z.string(), branch: z.string().nullable(), summary: z.string() }),
);
export type WeftGitCommitResult = z.infer<typeof WeftGitCommitResult>;

/** The commit HEAD names, for "Amend last commit" to start from its message. */
export const WeftGitLastCommitParams = lazySchema(() =>
  z.object({ cwd: AbsolutePath, weftEnvironment: WeftEnvironmentName }),
);
export type WeftGitLastCommitParams = z.infer<typeof WeftGitLastCommitParams>;

/** `commit` null: the branch has no commit yet. `message`: the whole message, as git keeps it. */
export const WeftGitLastCommitResult = lazySchema(() =>
  z.object({
    commit: z.object({ sha: z.string(), message: z.string() }).nullable(),
  }),
);
export type WeftGitLastCommitResult = z.infer<typeof WeftGitLastCommitResult>;

/** Asks the model for a commit message describing the staged diff. `threadId`: use that thread's model and provider. */
export const WeftGitCommitMessageParams = lazySchema(() =>
  z.object({ cwd: AbsolutePath, weftEnvironment: WeftEnvironmentName, threadId: z.string().nullish() }),
);
export type WeftGitCommitMessageParams = z.infer<typeof WeftGitCommitMessageParams>;

export const WeftGitCommitMessageResult = lazySchema(() => z.object({ message: z.string() }));
export type WeftGitCommitMessageResult = z.infer<typeof WeftGitCommitMessageResult>;

/**
 * Pushes the current branch. `remote` default: the branch's upstream remote, else the only remote, else
 * `origin`; without an upstream the branch is pushed with `--set-upstream`. `progressId`: progress lines
 * arrive as `weft/git/progress` notifications carrying it. Credentials are git's own (helpers, ssh agent).
 */
export const WeftGitPushParams = lazySchema(() =>
  z.object({
    cwd: AbsolutePath,
    weftEnvironment: WeftEnvironmentName,
    remote: z.string().min(1).nullish(),
    progressId: z.string().nullish(),
  }),
);
export type WeftGitPushParams = z.infer<typeof WeftGitPushParams>;

/** `output`: what git printed (stderr then stdout), verbatim. */
export const WeftGitPushResult = lazySchema(() =>
  z.object({ remote: z.string(), branch: z.string(), output: z.string() }),
);
export type WeftGitPushResult = z.infer<typeof WeftGitPushResult>;

/** A line git printed while working (push progress); `progressId` is the request's. */
export const WeftGitProgressNotification = lazySchema(() => z.object({ progressId: z.string(), line: z.string() }));
export type WeftGitProgressNotification = z.infer<typeof WeftGitProgressNotification>;

export const WeftGitBranchesParams = lazySchema(() =>
  z.object({ cwd: AbsolutePath, weftEnvironment: WeftEnvironmentName }),
);
export type WeftGitBranchesParams = z.infer<typeof WeftGitBranchesParams>;

export const GitBranch = lazySchema(() =>
  z.object({
    name: z.string(),
    current: z.boolean(),
    sha: z.string(),
    upstream: z.string().nullable(),
    subject: z.string(),
  }),
);
export type GitBranch = z.infer<typeof GitBranch>;

/** Local branches, current first. `dirty`: uncommitted changes exist (switching asks first). */
export const WeftGitBranchesResult = lazySchema(() =>
  z.object({
    current: z.string().nullable(),
    branches: z.array(GitBranch),
    dirty: z.boolean(),
  }),
);
export type WeftGitBranchesResult = z.infer<typeof WeftGitBranchesResult>;

/**
 * Switches to `branch` (`create`: a new branch from HEAD). With uncommitted changes the request fails
 * (`UncommittedChanges`) unless `allowDirty` (git then carries them over, or refuses verbatim).
 */
export const WeftGitCheckoutParams = lazySchema(() =>
  z.object({
    cwd: AbsolutePath,
    weftEnvironment: WeftEnvironmentName,
    branch: z
      .string()
      .min(1)
      .refine((b) => !b.startsWith('-'), { message: 'a branch name cannot start with "-"' }),
    create: z.boolean().nullish(),
    allowDirty: z.boolean().nullish(),
  }),
);
export type WeftGitCheckoutParams = z.infer<typeof WeftGitCheckoutParams>;

export const WeftGitCheckoutResult = lazySchema(() => z.object({ branch: z.string() }));
export type WeftGitCheckoutResult = z.infer<typeof WeftGitCheckoutResult>;
