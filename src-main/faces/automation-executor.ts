// The executor of the app: a run is a thread of the core, started through a client of a host like any
// face's (a worktree thread unless the automation says `local`), with approval policy `never` (what the
// sandbox refuses is refused and the model told; nobody is asked) and `questions = false` (the model has no
// tool to ask a question), named for its automation, then one
// turn with the prompt, followed to its end. The host is this process's, or, for an automation with a
// `remote`, that environment's app server through the relay the other faces use (`faces/remote`): the
// thread, its worktree and its rollout are there, the run's record is here.
import { diffFileCount, type ThreadItem } from '../../src-preload/protocol';
import type { RunCost } from '../automations/history';
import type { Automation } from '../automations/record';
import type { AutomationExecutor, ExecutionResult } from '../automations/runner';
import type { ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { finalAnswer, followTurn } from './follow-turn';
import { connectHostClient, type HostClient } from './host-client';

/**
 * Opens the relay to environment `name` (`[environments.NAME]`); throws, for people, when there is no
 * such environment. `onGiveUp` is told when the link is lost for good (never reached, or not back after
 * the relay's attempts); a link that comes back resumes the thread and passes on what happened meanwhile.
 */
export type OpenEnvironment = (
  name: string,
  options: { log(line: string): void; onGiveUp(why: string): void },
) => Promise<ConnectionHost>;

type Hooks = Parameters<AutomationExecutor['execute']>[1];

export function hostClientExecutor(
  client: HostClient,
  options: { openEnvironment?: OpenEnvironment; log?(line: string): void } = {},
): AutomationExecutor {
  return {
    execute(automation, hooks): Promise<ExecutionResult> {
      if (automation.remote === undefined) return runThread(client, automation, hooks);
      if (options.openEnvironment === undefined)
        return Promise.resolve({
          status: 'failed',
          reason: `this host cannot reach remote environments; run it with \`weft automations run ${automation.id}\``,
          finalMessage: null,
        });
      return runOnEnvironment(options.openEnvironment, automation.remote, automation, hooks, options.log);
    },
  };
}

class LinkLost extends Error {}

/**
 * A run on a remote environment. A link that drops is reconnected by the relay, which resumes the thread
 * and passes on the turn's end if it came meanwhile; a link lost for good fails the run, saying the
 * turn may have gone on there and in which thread.
 */
async function runOnEnvironment(
  open: OpenEnvironment,
  name: string,
  automation: Automation,
  hooks: Hooks,
  log: (line: string) => void = () => undefined,
): Promise<ExecutionResult> {
  let lost: (why: string) => void = () => undefined;
  const gone = new Promise<never>((_resolve, reject) => {
    lost = (why) => reject(new LinkLost(why));
  });
  gone.catch(() => undefined);
  let gaveUp: string | null = null;
  const host = await open(name, {
    log,
    onGiveUp: (why) => {
      gaveUp = why;
      lost(why);
    },
  });
  let client: HostClient;
  try {
    client = await connectHostClient(host, {
      label: `automation ${automation.id} on ${name}`,
      clientInfo: { name: 'weft-automations', title: 'Weft automations', version: VERSION },
      log,
    });
  } catch (error) {
    throw new Error(`environment "${name}" could not be reached: ${gaveUp ?? errorMessage(error)}`, { cause: error });
  }
  let threadId: string | null = null;
  try {
    const folder = await Promise.race([client.request('weft/fs/complete', { path: automation.project }), gone]);
    if (folder.kind !== 'folder')
      return {
        status: 'failed',
        reason: `the project folder ${automation.project} ${folder.kind === 'missing' ? 'does not exist' : folder.kind === 'file' ? 'is a file' : 'cannot be read'} on environment "${name}"; change \`project\` in ${automation.file}`,
        finalMessage: null,
      };
    const watched: Hooks = {
      signal: hooks.signal,
      onThread: (id, worktree) => {
        threadId = id;
        return hooks.onThread(id, worktree);
      },
    };
    return await Promise.race([runThread(client, automation, watched), gone]);
  } catch (error) {
    if (!(error instanceof LinkLost)) throw error;
    const where = threadId === null ? '' : ` in its thread ${threadId} there`;
    return {
      status: 'failed',
      reason: `the link to environment "${name}" was lost during the run and did not come back (${error.message}); the turn may have gone on${where}`,
      finalMessage: null,
    };
  } finally {
    client.close();
  }
}

async function runThread(client: HostClient, automation: Automation, hooks: Hooks): Promise<ExecutionResult> {
  const { thread } = await client.request('thread/start', {
    cwd: automation.project,
    approvalPolicy: 'never',
    // Nobody is there to answer a question either: the model is not given the tool to ask one.
    config: { questions: false },
    sandbox: automation.sandbox,
    ...(automation.model === undefined ? {} : { model: automation.model }),
    ...(automation.environment === 'worktree' ? { weftWorktree: true } : {}),
  });
  await hooks.onThread(thread.id, thread.weftWorktree?.path ?? null);
  // Named for its automation, so the thread lists say where it came from.
  await client.request('thread/name/set', { threadId: thread.id, name: `Automation: ${automation.name}` });
  const items: ThreadItem[] = [];
  let diff = '';
  let cost: RunCost | null = null;
  const turn = await followTurn(client, {
    threadId: thread.id,
    input: [{ type: 'text', text: automation.prompt }],
    // Said on the turn too: a thread's questions setting is its turns' (a person continuing the run may be
    // asked), and this turn is the automation's.
    overrides: { weftQuestions: false, ...(automation.effort === undefined ? {} : { effort: automation.effort }) },
    signal: hooks.signal,
    onNotification: (n) => {
      if (n.method === 'item/completed') items.push(n.params.item);
      else if (n.method === 'turn/diff/updated') diff = n.params.diff;
      else if (n.method === 'thread/tokenUsage/updated' && n.params.weftCost !== undefined)
        cost = n.params.weftCost.thread.cost;
    },
  });
  const message = finalAnswer(items);
  const facts = {
    finalMessage: message === '' ? null : message,
    turnId: turn.id,
    changedFiles: turn.weftDiffCut?.files ?? diffFileCount(turn.weftDiff ?? diff),
    cost,
    commands: items.flatMap((item) =>
      item.type === 'commandExecution' && item.source !== 'userShell'
        ? [{ command: item.command, exitCode: item.exitCode }]
        : [],
    ),
  };
  switch (turn.status) {
    case 'completed':
    case 'inProgress':
      return { status: 'completed', reason: null, ...facts };
    case 'interrupted':
      return { status: 'interrupted', reason: 'the run was stopped (the host closed)', ...facts };
    case 'failed':
      return { status: 'failed', reason: turn.error?.message ?? 'the turn failed', ...facts };
  }
}
