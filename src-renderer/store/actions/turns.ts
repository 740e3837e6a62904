// Turns: sending a message (a new turn, or steering the running one), retrying a failed last turn,
// stopping one, and the user's own commands (`!cmd`).
import type { AskForApproval, ReasoningEffort, SandboxMode, UserInput } from '../../../src-preload/protocol';
import { conversationFromThread, keepingOlderTurns } from '../conversation';
import { runningTurn, sandboxPolicyOf, userMessagesWith } from '../selectors';
import { MAX_WAYS, setData, setUi } from '../store';
import { turnReview } from '../turn-review';
import type { ActionContext } from './context';
import type { SettingsActions } from './settings';
import type { ThreadActions } from './threads';
import { openWays } from '../worktree-ui';

export function createTurns(ctx: ActionContext, settings: SettingsActions, threads: ThreadActions) {
  const { client, store, get, open, batcher, attempt, toast } = ctx;
  let steeringId = 0;
  /** Turns whose diff is being read (`threadId NUL turnId`): one read at a time each. */
  const diffReads = new Set<string>();

  /**
   * "Try N ways": the message starts `ways` worktree threads (one group), each with its own turn, then the
   * comparison of the group opens. True when every one of them started its turn.
   */
  const startWays = async (input: UserInput[], ways: number): Promise<boolean> => {
    const effort: ReasoningEffort | undefined = settings.overrides(get().ui.changed).effort;
    const { groupId, threadIds } = await threads.actions.startGroup(ways);
    if (threadIds.length === 0) return false;
    const turns = await Promise.all(
      threadIds.map(async (threadId) => {
        const result = await attempt('Could not start the turn', () =>
          client.request('turn/start', { threadId, input, effort, weftQuestions: true }),
        );
        if (result === undefined) open.noTurn(threadId);
        return result !== undefined;
      }),
    );
    setUi(store, { changed: [] });
    openWays(groupId);
    return threadIds.length === ways && turns.every(Boolean);
  };

  return {
    /** Runs the user's own command (`!cmd`) in the open thread (started first when none is open). */
    async shellCommand(command: string): Promise<boolean> {
      const threadId = get().ui.activeThreadId ?? (await threads.actions.openThread());
      if (threadId === null) return false;
      const done = await attempt('Could not run the command', () =>
        client.request('thread/shellCommand', { threadId, command }),
      );
      return done !== undefined;
    },

    /** Starts a turn (creating the thread first when none is open), or steers the running one. */
    async send(input: UserInput[]): Promise<boolean> {
      const { data, ui } = get();
      if (input.length === 0 || data.cwd === null) return false;
      let threadId = ui.activeThreadId;
      const changed = ui.changed;
      const o = settings.overrides(changed);
      if (threadId === null && ui.newThreadPlace.worktree && ui.newThreadPlace.ways > 1)
        return startWays(input, Math.min(ui.newThreadPlace.ways, MAX_WAYS));
      if (threadId === null) {
        // Started as New thread says (Local or Worktree), with the composer's settings.
        threadId = await threads.actions.openThread();
        if (threadId === null) return false;
      }
      const running = runningTurn(get().data.conversations[threadId]);
      if (running !== null) {
        // Shown at once, marked, until the turn takes it in (its user message item arrives).
        const text = input.find((part) => part.type === 'text')?.text ?? '';
        steeringId += 1;
        const pending = {
          id: steeringId,
          threadId,
          text,
          before: userMessagesWith(get().data.conversations[threadId], text),
        };
        setUi(store, (ui) => ({ steering: [...ui.steering, pending] }));
        const steerInput = turnReview.withNotes(threadId, input);
        const steered = await client
          .request('turn/steer', { threadId, input: steerInput, expectedTurnId: running.id })
          .then(
            () => true,
            () => false,
          );
        if (steered) {
          turnReview.sent(threadId);
          return true;
        }
        setUi(store, (ui) => ({ steering: ui.steering.filter((m) => m.id !== pending.id) }));
        // The turn ended (or was ending) as the message went: it starts the next turn instead, as it would
        // have a moment later. The server's turn/start still steers a turn that runs, and waits for one
        // that is ending; what fails there is told.
      }
      const sandbox: SandboxMode | undefined = ui.activeThreadId === null ? undefined : o.sandbox;
      const approvalPolicy: AskForApproval | undefined = ui.activeThreadId === null ? undefined : o.approvalPolicy;
      const effort: ReasoningEffort | undefined = o.effort;
      const asked = threadId;
      open.expectTurn(asked);
      // What the person said reviewing landed hunks goes with this message.
      const turnInput = turnReview.withNotes(threadId, input);
      const result = await attempt('Could not start the turn', () =>
        client.request('turn/start', {
          threadId,
          input: turnInput,
          model: ui.activeThreadId === null ? undefined : o.model,
          effort,
          approvalPolicy,
          sandboxPolicy: sandbox === undefined ? undefined : sandboxPolicyOf(sandbox),
          // A person sent it and is there to answer: the model may ask them (an automation's run that the
          // person continues included; its own turn asked nobody).
          weftQuestions: true,
        }),
      );
      if (result === undefined) {
        open.noTurn(asked);
        return false;
      }
      turnReview.sent(asked);
      // The overrides stick to the thread: shown again while held, it shows them.
      if (changed.length > 0) open.remember(asked, get().ui.settings);
      setUi(store, { changed: [] });
      return true;
    },

    /**
     * Runs a failed last turn again: the turn is rolled back (history and rollout, not files) and its
     * message is sent anew.
     */
    /**
     * Reads a turn's diff text, which the server only said had changed (`weft/turn/diffChanged`), for a
     * view that shows it. The answer goes through the reducers as `turn/diff/updated` would; a change
     * told after it makes the turn stale again, and the view asks again.
     */
    loadTurnDiff(threadId: string, turnId: string): void {
      const key = `${threadId}\u0000${turnId}`;
      if (diffReads.has(key)) return;
      diffReads.add(key);
      void attempt("Could not read the turn's changes", () => client.request('weft/turn/diff', { threadId, turnId }))
        .then((read) => {
          if (read === undefined) return;
          const cut = read.weftDiffCut === undefined ? {} : { weftDiffCut: read.weftDiffCut };
          batcher.push({ method: 'turn/diff/updated', params: { threadId, turnId, diff: read.diff ?? '', ...cut } });
        })
        .finally(() => diffReads.delete(key));
    },

    async retryTurn(threadId: string, turnId: string): Promise<void> {
      const conversation = get().data.conversations[threadId];
      const turn = conversation?.turns[turnId];
      if (
        conversation === undefined ||
        turn === undefined ||
        conversation.turnIds[conversation.turnIds.length - 1] !== turnId
      )
        return;
      const message = turn.itemIds.map((id) => turn.items[id]?.item).find((item) => item?.type === 'userMessage');
      if (message?.type !== 'userMessage') {
        toast('Could not retry: the turn has no message to send again.');
        return;
      }
      const input = message.content;
      const rolled = await attempt('Could not retry the turn', () =>
        client.request('thread/rollback', { threadId, numTurns: 1 }),
      );
      if (rolled === undefined) return;
      batcher.flush();
      setData(store, (data) => ({
        ...data,
        conversations: {
          ...data.conversations,
          [threadId]: keepingOlderTurns(
            {
              ...conversationFromThread(rolled.thread, conversation.olderTurnsCursor),
              tokenUsage: conversation.tokenUsage,
            },
            conversation,
          ),
        },
      }));
      open.expectTurn(threadId);
      const retried = await attempt('Could not retry the turn', () =>
        client.request('turn/start', { threadId, input, weftQuestions: true }),
      );
      if (retried === undefined) open.noTurn(threadId);
    },

    async stop(): Promise<void> {
      const threadId = get().ui.activeThreadId;
      if (threadId === null) return;
      const running = runningTurn(get().data.conversations[threadId]);
      if (running === null) return;
      await attempt('Could not stop the turn', () =>
        client.request('turn/interrupt', { threadId, turnId: running.id }),
      );
    },
  };
}
