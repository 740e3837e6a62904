// The newest review of the open thread, for the Changes panel's Review tab: while its turn runs, that it
// is running; once it ended, the verdict, the explanation and the findings, or why it stopped.
import type { ExitedReviewModeItem, TurnStatus } from '../../../src-preload/protocol';
import { FindingRow, ReviewTally } from '../../components/items/ReviewCells';
import { Spinner } from '../../components/Icon';
import type { Conversation } from '../../store/state';

export interface ReviewRunView {
  /** Index of the review's turn in the conversation (newer reviews have higher ones). */
  turnIndex: number;
  status: TurnStatus;
  error: string | null;
  /** What is reviewed ("the uncommitted changes"), as the review's first item says. */
  label: string | null;
  result: ExitedReviewModeItem | null;
}

/** The newest turn of `conversation` that is a review, or null. */
export function latestReview(conversation: Conversation | undefined): ReviewRunView | null {
  if (conversation === undefined) return null;
  for (let index = conversation.turnIds.length - 1; index >= 0; index--) {
    const id = conversation.turnIds[index];
    const turn = id === undefined ? undefined : conversation.turns[id];
    if (turn === undefined) continue;
    let label: string | null = null;
    let result: ExitedReviewModeItem | null = null;
    for (const itemId of turn.itemIds) {
      const item = turn.items[itemId]?.item;
      if (item?.type === 'enteredReviewMode') label = item.review;
      else if (item?.type === 'exitedReviewMode') result = item;
    }
    if (label !== null || result !== null)
      return { turnIndex: index, status: turn.status, error: turn.error?.message ?? null, label, result };
  }
  return null;
}

/** The turn index of the item `itemId` in `conversation`, or -1. */
export function turnIndexOf(conversation: Conversation | undefined, itemId: string): number {
  return conversation?.turnIds.findIndex((id) => conversation.turns[id]?.items[itemId] !== undefined) ?? -1;
}

export function ReviewRun({ run, threadId }: { run: ReviewRunView; threadId: string }) {
  const what = run.label ?? 'the changes';
  if (run.status === 'inProgress' && run.result === null) {
    return (
      <p className="changes-review-progress" role="status">
        <Spinner size={12} />
        <span>Reviewing {what}…</span>
      </p>
    );
  }
  const result = run.result;
  const review = result?.weftReview;
  if (result === null) {
    return (
      <p className="changes-error" role="alert">
        {run.status === 'interrupted'
          ? `The review of ${what} was stopped before it ended.`
          : `The review of ${what} did not end${run.error === null ? '.' : `: ${run.error}`}`}
      </p>
    );
  }
  return (
    <section className="changes-review-result review-result" aria-label="Review result">
      <header className="review-result-head">
        <strong>Review of {what}</strong>
        {review !== undefined && <ReviewTally review={review} />}
      </header>
      {review === undefined ? (
        <pre className="review-raw">{result.review}</pre>
      ) : (
        <>
          {review.overallExplanation !== '' && (
            <p className="changes-review-explanation">{review.overallExplanation}</p>
          )}
          {review.findings.length === 0 ? (
            <p className="muted">No findings.</p>
          ) : (
            <ol className="findings">
              {review.findings.map((f, i) => (
                <FindingRow key={i} finding={f} threadId={threadId} itemId={result.id} />
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
