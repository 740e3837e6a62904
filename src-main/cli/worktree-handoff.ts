// `weft worktrees handoff THREAD`: a worktree thread's Handoff from a terminal, through the same core and
// protocol methods as the app (`weft/worktree/handoff/preview`, then `weft/worktree/handoff` with the
// preview's fingerprint). Without --apply it only shows what would happen, a conflict as the two sides'
// diff; --apply writes nothing while a conflict has no side chosen (--take-local / --take-worktree).
import { parseArgs } from 'node:util';
import { structuredPatch } from 'diff';
import type {
  WeftHandoffFile,
  WeftHandoffResolution,
  WeftWorktreeHandoffPreviewResult,
  WeftWorktreeHandoffResult,
} from '../../src-preload/protocol';
import type { ConnectionHost } from '../server/transport';
import { VERSION } from '../version';

export const HANDOFF_USAGE = `       weft worktrees handoff THREAD [--to local|worktree] [--apply [--take-local PATH]...
                              [--take-worktree PATH]... [--move]] [--json]`;

export const HANDOFF_HELP = `  handoff Moves a worktree thread's work between its worktree and the project's own checkout
          ("local"), as the thread's Handoff does in the app. --to local (the default) brings what
          the worktree holds beyond the commit it was made from (its commits, uncommitted and
          untracked files) to the local checkout; --to worktree brings the local checkout's
          uncommitted changes to the worktree. Without --apply it only lists each file (apply, merge,
          conflict, same, skipped) and shows each conflict as a diff of the two sides. --apply writes
          it, refusing while a conflict has no side chosen: --take-local PATH keeps the local version,
          --take-worktree PATH the worktree's (either also leaves a file out, on the destination's side).
          --move then takes what was brought over back out of the source and moves the thread with it:
          its next turns work in the destination. --json prints the protocol's
          preview or result.
`;

/** The app's core, made for this run and closed after it. */
export type HandoffHost = () => Promise<{ host: ConnectionHost; close(): Promise<void> }>;

export async function runHandoff(argv: string[], makeHost: HandoffHost): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      to: { type: 'string' },
      apply: { type: 'boolean' },
      move: { type: 'boolean' },
      'take-local': { type: 'string', multiple: true },
      'take-worktree': { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
  });
  const threadId = positionals[0];
  if (threadId === undefined || positionals.length > 1)
    throw new Error('handoff needs one thread id (`weft threads list` lists them)');
  const to = values.to ?? 'local';
  if (to !== 'local' && to !== 'worktree') throw new Error(`--to must be local or worktree, got "${to}"`);
  const direction = to === 'local' ? 'toLocal' : 'toWorktree';
  const resolutions: WeftHandoffResolution[] = [
    ...(values['take-local'] ?? []).map((path) => ({ path, take: 'local' as const })),
    ...(values['take-worktree'] ?? []).map((path) => ({ path, take: 'worktree' as const })),
  ];
  const apply = values.apply === true;
  if (!apply && (resolutions.length > 0 || values.move === true))
    throw new Error('--take-local, --take-worktree and --move choose how to write: add --apply');

  const app = await makeHost();
  const { connectHostClient } = await import('../faces/host-client');
  const client = await connectHostClient(app.host, {
    label: 'weft worktrees handoff',
    clientInfo: { name: 'weft-worktrees', title: 'weft worktrees handoff', version: VERSION },
  });
  try {
    const preview = await client.request('weft/worktree/handoff/preview', { threadId, direction });
    if (!apply) {
      process.stdout.write(values.json === true ? `${JSON.stringify(preview)}\n` : describePreview(threadId, preview));
      return 0;
    }
    const chosen = new Set(resolutions.map((r) => r.path));
    const open = preview.files.filter((f) => f.status === 'conflict' && !chosen.has(f.path)).map((f) => f.path);
    if (open.length > 0)
      throw new Error(
        `${open.length === 1 ? '1 file was' : `${open.length} files were`} changed on both sides (${open.join(', ')}) ` +
          'and no side was chosen: nothing was written; choose one for each with --take-local PATH or --take-worktree PATH',
      );
    const result = await client.request('weft/worktree/handoff', {
      threadId,
      direction,
      fingerprint: preview.fingerprint,
      resolutions,
      move: values.move === true,
    });
    process.stdout.write(
      values.json === true ? `${JSON.stringify(result)}\n` : describeResult(threadId, preview, result),
    );
    return 0;
  } finally {
    client.close();
    await app.close();
  }
}

function destination(preview: WeftWorktreeHandoffPreviewResult): string {
  return preview.direction === 'toLocal'
    ? `the local checkout ${preview.local}`
    : `the thread's worktree ${preview.worktree}`;
}

const CHANGE_NOTE: Record<WeftHandoffFile['change'], string> = { add: ' (new)', delete: ' (deleted)', update: '' };

function describePreview(threadId: string, preview: WeftWorktreeHandoffPreviewResult): string {
  const lines = [`Handoff of thread ${threadId} (branch ${preview.branch}) to ${destination(preview)}:`];
  if (preview.files.length === 0) lines.push('  nothing to bring: the two sides hold the same work');
  for (const f of preview.files)
    lines.push(`  ${f.status.padEnd(9)} ${f.path}${f.reason === null ? CHANGE_NOTE[f.change] : `: ${f.reason}`}`);
  const conflicts = preview.files.filter((f) => f.status === 'conflict');
  for (const f of conflicts)
    lines.push('', `Conflict in ${f.path} (- local, + the thread’s worktree):`, ...sidesDiff(f));
  if (conflicts.length > 0)
    lines.push(
      '',
      `${conflicts.length === 1 ? '1 conflict' : `${conflicts.length} conflicts`}: nothing is written until you choose a side for each: --take-local PATH keeps the local`,
      'version, --take-worktree PATH takes the worktree’s. Then run it again with --apply.',
    );
  else if (preview.files.some((f) => f.status === 'apply' || f.status === 'merge'))
    lines.push('', 'Run it again with --apply to write it.');
  return `${lines.join('\n')}\n`;
}

/** The local side against the worktree's, as unified diff hunks; a side with no text is named instead. */
function sidesDiff(file: WeftHandoffFile): string[] {
  const text = (side: WeftHandoffFile['local']): string | null =>
    side.kind === 'absent' ? '' : side.kind === 'file' ? side.text : null;
  const local = text(file.local);
  const worktree = text(file.worktree);
  const kind = (side: WeftHandoffFile['local']): string =>
    side.kind === 'file' ? 'a binary file or one too large to show' : side.kind === 'other' ? 'not a file' : side.kind;
  if (local === null || worktree === null)
    return [`  local: ${kind(file.local)}`, `  worktree: ${kind(file.worktree)}`];
  return structuredPatch('local', 'worktree', local, worktree, '', '', { context: 3 }).hunks.flatMap((h) => [
    `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
    ...h.lines,
  ]);
}

function describeResult(
  threadId: string,
  preview: WeftWorktreeHandoffPreviewResult,
  result: WeftWorktreeHandoffResult,
): string {
  const lines = [`Handed off thread ${threadId} to ${destination(preview)}:`];
  const list = (label: string, paths: readonly string[], note = ''): void => {
    if (paths.length > 0) lines.push(`  ${label}: ${paths.join(', ')}${note}`);
  };
  const named = new Set([...result.merged, ...result.overwritten]);
  list(
    'written',
    result.written.filter((p) => !named.has(p)),
  );
  list('merged', result.merged);
  list(
    'overwritten',
    result.overwritten,
    ' (the version it replaced is kept: the Changes panel lists it with Restore)',
  );
  list('kept as they were', result.kept);
  for (const n of result.notWritten) lines.push(`  not written: ${n.path}: ${n.reason}`);
  list('taken back out of the source', result.moved);
  if (lines.length === 1) lines.push('  nothing needed writing');
  if (result.threadCwd !== null) lines.push(`  the thread works in ${result.threadCwd} from now on`);
  return `${lines.join('\n')}\n`;
}
