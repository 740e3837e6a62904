// `weft worktrees`: the git worktrees Weft made for worktree threads, what each holds, and their clean-up.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { threadTitle } from '../../src-preload/protocol';
import { CheckpointService } from '../checkpoints/service';
import { checkpointSettings } from '../checkpoints/settings';
import { loadConfig, resolveWeftHome } from '../config';
import {
  branchSummary,
  pruneVerdict,
  removeWorktree,
  uniqueWork,
  type InspectedWorktree,
  type PruneVerdict,
  type WorktreeThreadRef,
} from '../git/worktree-prune';
import { worktreeFolders, worktreeState, type RecordedWorktree } from '../git/worktree-status';
import { ThreadStore } from '../store';
import { errorMessage } from '../util/errors';
import { dispatchSubCommand } from './sub-commands';

/** `[worktree] prune_after_days` when the config says nothing. */
export const DEFAULT_PRUNE_AFTER_DAYS = 7;

const USAGE = `Usage: weft worktrees list [--json]
       weft worktrees prune [--days N] [--yes PATH|BRANCH]... [--dry-run] [--json]

A worktree thread (New thread → Worktree, or thread/start {weftWorktree: true}) works in a git worktree
of its own, under WEFT_HOME/worktrees/<project>-<hash>/<name> on a new branch (weft/<name> by default).

  list    Each worktree: its folder, branch and base, its threads (archived or not), whether its branch
          is merged into its base or empty, and the work found nowhere else in it: commits no other
          branch, tag or remote has, and uncommitted or untracked files (each file counted) that the
          project's own folder does not hold as they are
  prune   Removes each worktree whose threads are all archived and were idle for N days (--days, else
          [worktree] prune_after_days in config.toml, else ${DEFAULT_PRUNE_AFTER_DAYS}) and whose branch is merged into its
          base or has no commits; its branch goes too when no commit of it would be lost. One that
          holds work found nowhere else is kept and named, unless you name it yourself with --yes
          (its folder or its branch; repeat --yes for several). --dry-run only says what it would do.
          Nothing else is ever removed.
`;

export async function runWorktreesCommand(argv: string[]): Promise<number> {
  return dispatchSubCommand(
    {
      command: 'worktrees',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(rest) },
        prune: { run: (rest) => prune(rest) },
      },
    },
    argv,
  );
}

interface Context {
  weftHome: string;
  worktreesDir: string;
  pruneAfterDays: number;
  worktrees: InspectedWorktree[];
}

/** Every worktree Weft made: those saved threads name, then folders under the worktrees dir no thread names. */
async function inspect(): Promise<Context> {
  const weftHome = resolveWeftHome(process.env);
  const { config } = await loadConfig({ weftHome, cwd: process.cwd(), env: process.env });
  const { worktreesDir } = checkpointSettings(config, weftHome);
  const byPath = new Map<string, { recorded: RecordedWorktree; threads: WorktreeThreadRef[] }>();
  const store = ThreadStore.open(weftHome, { onWarning: (m) => process.stderr.write(`weft: warning: ${m}\n`) });
  try {
    await store.whenIndexed();
    for (const { thread, archived, worktree } of store.worktreeThreads()) {
      const path = resolve(worktree.path);
      const entry = byPath.get(path) ?? {
        recorded: {
          path,
          branch: worktree.branch,
          baseRef: worktree.base_ref,
          baseCommit: worktree.base_commit,
          projectRoot: worktree.project_root,
        },
        threads: [],
      };
      entry.threads.push({ id: thread.id, title: threadTitle(thread), archived, updatedAt: thread.updatedAt });
      byPath.set(path, entry);
    }
  } finally {
    await store.close();
  }
  for (const folder of await worktreeFolders(worktreesDir)) {
    if (!byPath.has(folder))
      byPath.set(folder, {
        recorded: { path: folder, branch: '', baseRef: '', baseCommit: null, projectRoot: null },
        threads: [],
      });
  }
  const worktrees: InspectedWorktree[] = [];
  for (const { recorded, threads } of byPath.values()) {
    const state = await worktreeState(recorded);
    // A folder no thread names: its branch is whatever is checked out there.
    const branch = recorded.branch === '' ? (state.checkedOut ?? '(detached)') : recorded.branch;
    worktrees.push({ recorded: { ...recorded, branch }, threads, state });
  }
  return {
    weftHome,
    worktreesDir,
    pruneAfterDays: config.worktree?.prune_after_days ?? DEFAULT_PRUNE_AFTER_DAYS,
    worktrees: worktrees.sort((a, b) => (a.recorded.path < b.recorded.path ? -1 : 1)),
  };
}

function asJson(w: InspectedWorktree): Record<string, unknown> {
  const { recorded, state } = w;
  return {
    path: recorded.path,
    branch: recorded.branch,
    baseRef: recorded.baseRef === '' ? null : recorded.baseRef,
    projectRoot: recorded.projectRoot,
    threads: w.threads.map((t) => ({ id: t.id, title: t.title, archived: t.archived })),
    present: state.present,
    commits: state.commits,
    merged: state.merged,
    empty: state.commits === 0,
    uniqueWork: { found: uniqueWork(state) !== null, commits: state.uniqueCommits, files: state.uniqueFiles },
    problem: state.problem,
  };
}

function describe(w: InspectedWorktree): string[] {
  const { recorded, state } = w;
  const lines = [recorded.path];
  if (!state.present) lines.push('  folder: gone');
  if (state.problem !== null) lines.push(`  problem: ${state.problem}`);
  const base = recorded.baseRef === '' ? '' : ` from ${recorded.baseRef}`;
  lines.push(`  branch: ${recorded.branch}${base}: ${state.present ? branchSummary(w) : 'unknown'}`);
  if (w.threads.length === 0) lines.push('  thread: none saved works in it');
  for (const t of w.threads)
    lines.push(`  thread: ${t.id} ${JSON.stringify(t.title)}${t.archived ? ' (archived)' : ''}`);
  const work = uniqueWork(state);
  lines.push(`  unique work: ${work === null ? 'no' : `yes: ${work}`}`);
  return lines;
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const { worktrees, worktreesDir } = await inspect();
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(worktrees.map(asJson))}\n`);
    return 0;
  }
  if (worktrees.length === 0) {
    process.stdout.write(`No worktrees in ${worktreesDir}.\n`);
    return 0;
  }
  process.stdout.write(`${worktrees.map((w) => describe(w).join('\n')).join('\n\n')}\n`);
  return 0;
}

/** The worktrees each `--yes` names (its folder, resolved, or its branch); an error for a name that fits none or several. */
function named(worktrees: readonly InspectedWorktree[], names: readonly string[]): Set<InspectedWorktree> {
  const out = new Set<InspectedWorktree>();
  for (const name of names) {
    const hits = worktrees.filter((w) => w.recorded.path === resolve(name) || w.recorded.branch === name);
    if (hits.length === 0)
      throw new Error(`--yes ${name}: no worktree has that folder or branch (\`weft worktrees list\` shows them)`);
    if (hits.length > 1) throw new Error(`--yes ${name}: ${hits.length} worktrees have that branch; give the folder`);
    for (const hit of hits) out.add(hit);
  }
  return out;
}

async function prune(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      days: { type: 'string' },
      yes: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const days = values.days === undefined ? null : Number(values.days);
  if (days !== null && !(Number.isFinite(days) && days >= 0)) {
    process.stderr.write(`weft worktrees prune: --days must be a number of days (0 or more), not "${values.days}"\n`);
    return 2;
  }
  const context = await inspect();
  const yes = named(context.worktrees, values.yes ?? []);
  const options = { nowMs: Date.now(), days: days ?? context.pruneAfterDays };
  const dryRun = values['dry-run'] === true;
  const report: Record<string, unknown>[] = [];
  let failed = false;
  for (const w of context.worktrees) {
    const verdict: PruneVerdict = pruneVerdict(w, options);
    const path = w.recorded.path;
    if (verdict.kind === 'keep' || (verdict.kind === 'needsYes' && !yes.has(w))) {
      report.push({ path, removed: false, reason: verdict.reason });
      if (verdict.kind === 'needsYes' && values.json !== true)
        process.stderr.write(
          `weft worktrees: kept ${path}: ${verdict.reason}. To remove it anyway: weft worktrees prune --yes ${path}\n`,
        );
      else if (yes.has(w) && values.json !== true)
        process.stderr.write(`weft worktrees: kept ${path} (named with --yes): ${verdict.reason}\n`);
      continue;
    }
    if (dryRun) {
      report.push({ path, removed: false, wouldRemove: true });
      if (values.json !== true) process.stdout.write(`Would remove ${path} (${w.recorded.branch})\n`);
      continue;
    }
    try {
      const lost = uniqueWork(w.state);
      const { deletedBranch } = await removeWorktree(w, context.worktreesDir);
      await forkFolderRemoved(context, path);
      report.push({ path, removed: true, deletedBranch });
      const branch =
        deletedBranch === null ? ` (its branch ${w.recorded.branch} is kept)` : ` and its branch ${deletedBranch}`;
      if (values.json !== true)
        process.stdout.write(`Removed ${path}${branch}${lost === null ? '' : `, with what only it held: ${lost}`}\n`);
    } catch (error) {
      failed = true;
      report.push({ path, removed: false, reason: errorMessage(error) });
      if (values.json !== true) process.stderr.write(`weft worktrees: ${errorMessage(error)}\n`);
    }
  }
  if (values.json === true) process.stdout.write(`${JSON.stringify(report)}\n`);
  else if (!report.some((r) => r['removed'] === true || r['wouldRemove'] === true))
    process.stdout.write('Nothing to remove.\n');
  return failed ? 1 : 0;
}

/** A fork's worktree removed here is marked removed in its fork record (the sidebar stops offering it). */
async function forkFolderRemoved(context: Context, folder: string): Promise<void> {
  const { forks } = new CheckpointService(checkpointSettings({}, context.weftHome).service);
  for (const record of await forks.list())
    if (resolve(record.folder) === folder && record.removedAt === null)
      await forks.save({ ...record, removedAt: new Date().toISOString() });
}
