// The executor of the app: a run is a thread of the core, started through an in-process client of the
// host like any face's (a worktree thread unless the automation says `local`), with approval policy
// `never` (what the sandbox refuses is refused and the model told; nobody is asked), named for its
// automation, then one turn with the prompt, followed to its end.
import type { ThreadItem } from '../../src-preload/protocol';
import type { RunCost } from '../automations/history';
import { finalAnswer, followTurn } from './follow-turn';
import type { HostClient } from './host-client';
import type { AutomationExecutor, ExecutionResult } from '../automations/runner';

export function hostClientExecutor(client: HostClient): AutomationExecutor {
  return {
    async execute(automation, hooks): Promise<ExecutionResult> {
      const { thread } = await client.request('thread/start', {
        cwd: automation.project,
        approvalPolicy: 'never',
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
        overrides: automation.effort === undefined ? {} : { effort: automation.effort },
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
        changedFiles: turn.weftDiffCut?.files ?? filesIn(turn.weftDiff ?? diff),
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
    },
  };
}

/** Files in a unified diff of git's form (`diff --git` starts each). */
function filesIn(diff: string): number {
  return diff.split('\n').filter((line) => line.startsWith('diff --git ')).length;
}
