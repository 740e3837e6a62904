import { mergeMemory, parseCompactionAnswer, replacementHistory, summarize } from '../../context/compaction';
import { ModelError } from '../../model/errors';
import { ZERO_USAGE } from '../../model/prices';
import { newItemId } from '../../util/ids';
import { TurnTask, type TurnEnd } from './base';

/** A turn that only compacts the history (`thread/compact/start`). */
export class CompactTurn extends TurnTask {
  protected async run(): Promise<TurnEnd> {
    await compactHistory(this, 0, 'manual');
    return { status: 'completed', error: null };
  }
}

/**
 * Replaces the history with the user's recent messages, a handoff summary written by the model and
 * the thread's working memory; the context is sent again at the next request. `newest`: items just
 * appended that the compaction leaves out (the caller appends them again after it). Used by a compact
 * turn and by a regular turn whose history is over the limit.
 */
export async function compactHistory(turn: TurnTask, newest = 0, trigger: 'manual' | 'auto' = 'auto'): Promise<void> {
  const { host } = turn;
  const o = host.options;
  // PreCompact / PostCompact hooks (Codex's `trigger`); their decisions do not stop a compaction.
  await o.hooks?.run({ event: 'PreCompact', turnId: turn.id, target: trigger, fields: { trigger } });
  const before = newest === 0 ? host.history : host.history.slice(0, host.history.length - newest);
  const { threadId } = o;
  const turnId = turn.id;
  const item = { type: 'contextCompaction' as const, id: newItemId() };
  host.emit({ method: 'item/started', params: { threadId, turnId, item } });
  const { text: answer, usage } = await summarize(
    o.modelClient,
    {
      model: turn.settings.model,
      instructions: o.baseInstructions,
      parallelToolCalls: false,
      reasoning: turn.reasoning(),
      promptCacheKey: threadId,
    },
    before,
    turn.signal,
    (e) => e instanceof ModelError && e.info === 'ContextWindowExceeded',
  );
  if (answer.trim() === '')
    throw new ModelError('the model returned an empty summary, so the thread was not compacted', 'Other', {
      retryable: false,
      phase: 'stream',
    });
  const { summary, memory } = parseCompactionAnswer(answer);
  host.workingMemory = mergeMemory(host.workingMemory, memory);
  const replacement = replacementHistory(before, summary, host.workingMemory);
  host.replaceHistory(replacement);
  o.recorder?.compacted({ message: summary, replacementHistory: replacement });
  host.contextRef = null;
  // The summary request is counted and priced; the context it leaves is the summary, not that request.
  if (usage !== null) turn.recordUsage(usage, ZERO_USAGE);
  else if (host.tokenUsage) host.tokenUsage = { ...host.tokenUsage, last: ZERO_USAGE };
  host.emit({ method: 'item/completed', params: { threadId, turnId, item } });
  await o.hooks?.run({ event: 'PostCompact', turnId: turn.id, target: trigger, fields: { trigger } });
  host.emit({
    method: 'warning',
    params: {
      threadId,
      message:
        'Heads up: this thread was compacted. Long threads and repeated compactions can make the model less accurate; start a new thread when the task allows.',
    },
  });
}
