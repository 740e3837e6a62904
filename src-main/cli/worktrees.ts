// `weft worktrees`: the git worktrees Weft made for worktree threads, what each holds, and their clean-up.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CheckpointService } from '../checkpoints/service';
import { checkpointSettings } from '../checkpoints/settings';
import { loadConfig, resolveWeftHome } from '../config';
import { branchSummary, uniqueWork, type InspectedWorktree } from '../git/worktree-prune';
import {
  DEFAULT_PRUNE_AFTER_DAYS,
  inspectWorktrees,
  pruneWorktrees,
  type PruneOutcome,
} from '../server/worktree-cleanup';
import { ThreadStore } from '../store';
import { dispatchSubCommand } from './sub-commands';
import { HANDOFF_HELP, HANDOFF_USAGE, runHandoff } from './worktree-handoff';

const USAGE = `Usage: weft worktrees list [--json]
       weft worktrees prune [--days N] [--yes PATH|BRANCH]... [--dry-run] [--json]
${HANDOFF_USAGE}

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
          Nothing else is ever removed. The app (weft serve, weft app-server) prunes the same way, without
          --yes, a minute after it starts.
${HANDOFF_HELP}`;

export async function runWorktreesCommand(argv: string[]): Promise<number> {
  return dispatchSubCommand(
    {
      command: 'worktrees',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(rest) },
        prune: { run: (rest) => prune(rest) },
        handoff: {
          run: (rest) =>
            runHandoff(rest, async () => {
              const { createAppHost } = await import('../server/app-host');
              const app = await createAppHost({ cwd: process.cwd(), log: () => undefined });
              return { host: app.host, close: () => app.close() };
            }),
        },
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

async function inspect(): Promise<Context> {
  const weftHome = resolveWeftHome(process.env);
  const { config } = await loadConfig({ weftHome, cwd: process.cwd(), env: process.env });
  const { worktreesDir } = checkpointSettings(config, weftHome);
  const store = ThreadStore.open(weftHome, { onWarning: (m) => process.stderr.write(`weft: warning: ${m}\n`) });
  let worktrees: InspectedWorktree[];
  try {
    await store.whenIndexed();
    worktrees = await inspectWorktrees(store, worktreesDir);
  } finally {
    await store.close();
  }
  return {
    weftHome,
    worktreesDir,
    pruneAfterDays: config.worktree?.prune_after_days ?? DEFAULT_PRUNE_AFTER_DAYS,
    worktrees,
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
  const outcomes = await pruneWorktrees(context.worktrees, {
    worktreesDir: context.worktreesDir,
    days: days ?? context.pruneAfterDays,
    nowMs: Date.now(),
    named: named(context.worktrees, values.yes ?? []),
    dryRun: values['dry-run'] === true,
    forks: new CheckpointService(checkpointSettings({}, context.weftHome).service).forks,
  });
  if (values.json === true) {
    const report = outcomes.map((o) => ({
      path: o.worktree.recorded.path,
      removed: o.removed !== null,
      ...(values['dry-run'] === true ? { wouldRemove: o.wouldGo } : {}),
      deletedBranch: o.removed?.deletedBranch ?? null,
      reason: o.verdict.kind === 'remove' ? null : o.verdict.reason,
      error: o.error,
    }));
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else for (const o of outcomes) say(o, values['dry-run'] === true);
  if (values.json !== true && !outcomes.some((o) => o.removed !== null || (values['dry-run'] === true && o.wouldGo)))
    process.stdout.write('Nothing to remove.\n');
  return outcomes.some((o) => o.error !== null) ? 1 : 0;
}

/** What happened to one worktree, for people: removals on stdout, what was kept for a reason on stderr. */
function say(o: PruneOutcome, dryRun: boolean): void {
  const { path, branch } = o.worktree.recorded;
  if (o.error !== null) process.stderr.write(`weft worktrees: ${o.error}\n`);
  else if (dryRun && o.wouldGo) process.stdout.write(`Would remove ${path} (${branch})\n`);
  else if (o.removed !== null) {
    const kept = o.removed.deletedBranch === null;
    process.stdout.write(
      `Removed ${path}${kept ? ` (its branch ${branch} is kept)` : ` and its branch ${o.removed.deletedBranch}`}${o.lost === null ? '' : `, with what only it held: ${o.lost}`}\n`,
    );
  } else if (o.verdict.kind === 'needsYes')
    process.stderr.write(
      `weft worktrees: kept ${path}: ${o.verdict.reason}. To remove it anyway: weft worktrees prune --yes ${path}\n`,
    );
  else if (o.named && o.verdict.kind === 'keep')
    process.stderr.write(`weft worktrees: kept ${path} (named with --yes): ${o.verdict.reason}\n`);
}
