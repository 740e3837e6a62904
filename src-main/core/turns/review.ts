import { isKnownResponseItem } from '../../../src-preload/protocol';
import type { ModelRequest } from '../../model/types';
import { newItemId } from '../../util/ids';
import { reviewHistoryText, type ReviewTurnInput } from '../review-turn';
import type { TurnSettings } from '../types';
import { TurnTask, type TurnEnd, type TurnHost } from './base';

/**
 * A review (`review/start`): the reviewer gets its own instructions and one message holding the diff, no
 * tools and none of the thread's history; its answer becomes an `exitedReviewMode` item (its messages are
 * not shown as the agent's), and the thread's history keeps the result for later turns.
 */
export class ReviewTurn extends TurnTask {
  constructor(
    host: TurnHost,
    settings: TurnSettings,
    private readonly review: ReviewTurnInput,
  ) {
    super(host, settings);
  }

  protected async run(): Promise<TurnEnd> {
    const { review } = this;
    const { threadId } = this.host.options;
    const entered = { type: 'enteredReviewMode' as const, id: newItemId(), review: review.description };
    this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item: entered } });
    this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item: entered } });
    const request: ModelRequest = {
      model: this.settings.model,
      instructions: review.instructions,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: review.prompt }] }],
      tools: [],
      parallelToolCalls: false,
      reasoning: this.reasoning(),
      promptCacheKey: `${threadId}:review`,
      outputSchema: review.outputSchema,
    };
    const outcome = await this.sample(() => request, true);
    if (outcome.usage) this.recordUsage(outcome.usage);
    const answer = outcome.items
      .map((item) =>
        isKnownResponseItem(item) && item.type === 'message' && item.role === 'assistant'
          ? item.content.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : '')).join('')
          : '',
      )
      .join('');
    const { text, output } = review.parse(answer);
    const exited = {
      type: 'exitedReviewMode' as const,
      id: newItemId(),
      review: text,
      ...(output === null ? {} : { weftReview: output }),
    };
    this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item: exited } });
    this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item: exited } });
    this.host.appendHistory({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: reviewHistoryText(review.description, text) }],
    });
    return { status: 'completed', error: null };
  }
}
