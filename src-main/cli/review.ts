// `weft review`: a code review of the uncommitted changes, a branch or a commit, printed as findings.
// It runs `review/start` on a new thread through the same core as the app, so the review is a thread
// like any other (listed, resumable: "fix the P1" can follow in the app).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ExitedReviewModeItem, ReviewTarget, ServerNotification } from '../../src-preload/protocol';
import type { ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';

const USAGE = `Usage: weft review [--uncommitted | --base BRANCH | --commit SHA | INSTRUCTIONS] [-C DIR] [--json]

Reviews code with the configured model and prints its findings (priority P0-P3, confidence, file and
lines). Weft computes the diff and sends it with the project's AGENTS.md.

  --uncommitted     the staged, unstaged and untracked changes (the default)
  --base BRANCH     the changes since the current branch left BRANCH (its merge base)
  --commit SHA      the changes one commit made
  INSTRUCTIONS      free text: what to review, in your words
  -C, --cd DIR      the project folder (default: the current folder)
  --json            print the findings as JSON ({findings, overallCorrectness, ...})

The exit status is 0 when the review ran (whatever it found), 1 when it could not run, 2 for bad usage.
`;

export function parseReviewArgs(
  argv: string[],
): { target: ReviewTarget; cwd: string; json: boolean } | { usage: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        uncommitted: { type: 'boolean' },
        base: { type: 'string' },
        commit: { type: 'string' },
        cd: { type: 'string', short: 'C' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { usage: errorMessage(error) };
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { usage: '' };
  const chosen = [
    values.uncommitted === true,
    values.base !== undefined,
    values.commit !== undefined,
    positionals.length > 0,
  ].filter(Boolean).length;
  if (chosen > 1) return { usage: 'choose one of --uncommitted, --base, --commit or instructions' };
  const target: ReviewTarget =
    values.base !== undefined
      ? { type: 'baseBranch', branch: values.base }
      : values.commit !== undefined
        ? { type: 'commit', sha: values.commit }
        : positionals.length > 0
          ? { type: 'custom', instructions: positionals.join(' ') }
          : { type: 'uncommittedChanges' };
  return { target, cwd: resolve(values.cd ?? process.cwd()), json: values.json === true };
}

export async function runReviewCommand(
  argv: string[],
  makeHost: (options: { cwd: string }) => Promise<{ host: ConnectionHost; close(): Promise<void> }>,
): Promise<number> {
  const args = parseReviewArgs(argv);
  if ('usage' in args) {
    if (args.usage === '') {
      process.stdout.write(USAGE);
      return 0;
    }
    process.stderr.write(`weft review: ${args.usage}\n\n${USAGE}`);
    return 2;
  }
  if (!existsSync(args.cwd)) {
    process.stderr.write(`weft review: ${args.cwd} does not exist\n`);
    return 2;
  }
  const app = await makeHost({ cwd: args.cwd });
  const { connectHostClient } = await import('../faces/host-client');
  const client = await connectHostClient(app.host, {
    label: 'weft review',
    clientInfo: { name: 'weft-review', title: 'weft review', version: VERSION },
  });
  try {
    const { thread } = await client.request('thread/start', {
      cwd: args.cwd,
      approvalPolicy: 'never',
      sandbox: 'read-only',
    });
    let exited: ExitedReviewModeItem | null = null;
    let failure: string | null = null;
    let turnId: string | null = null;
    const early: ServerNotification[] = [];
    const finished = new Promise<void>((done) => {
      const onNote = (n: ServerNotification): void => {
        if (turnId === null) {
          early.push(n);
          return;
        }
        if (n.method === 'item/completed' && n.params.turnId === turnId && n.params.item.type === 'exitedReviewMode')
          exited = n.params.item;
        if (
          n.method === 'item/completed' &&
          n.params.turnId === turnId &&
          n.params.item.type === 'enteredReviewMode' &&
          !args.json
        )
          process.stderr.write(`Reviewing ${n.params.item.review}…\n`);
        if (n.method === 'turn/completed' && n.params.turn.id === turnId) {
          if (n.params.turn.status !== 'completed')
            failure = n.params.turn.error?.message ?? `the review ended ${n.params.turn.status}`;
          done();
        }
      };
      client.onNotification((n) => onNote(n));
      void client.request('review/start', { threadId: thread.id, target: args.target }).then(
        ({ turn }) => {
          turnId = turn.id;
          for (const n of early.splice(0)) onNote(n);
        },
        (error: unknown) => {
          failure = errorMessage(error);
          done();
        },
      );
    });
    await finished;
    const result = exited as ExitedReviewModeItem | null;
    if (failure !== null || result === null) {
      process.stderr.write(`weft review: ${failure ?? 'the review returned no result'}\n`);
      return 1;
    }
    if (args.json) process.stdout.write(`${JSON.stringify(result.weftReview ?? { raw: result.review })}\n`);
    else process.stdout.write(`${result.review}\n`);
    if (!args.json) process.stderr.write(`(thread ${thread.id}: continue it in the app to fix what was found)\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`weft review: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    client.close();
    await app.close();
  }
}
