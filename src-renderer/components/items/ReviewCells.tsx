// A code review in the conversation: where it started, and the findings it ended with (each opens its
// line in the Changes panel, or starts a turn to fix it).
import type { EnteredReviewModeItem, ExitedReviewModeItem, ReviewFinding } from '../../../src-preload/protocol';
import { useController } from '../../store/app-context';
import { changesActions, fixMessage } from '../../store/changes-store';
import { Icon } from '../Icon';

export function EnteredReviewCell({ item }: { item: EnteredReviewModeItem }) {
  return (
    <div className="cell cell-tool review-start">
      <Icon name="search" size={14} /> Reviewing {item.review}…
    </div>
  );
}

/** "3 findings · patch is incorrect": a review's count of findings and its verdict. */
export function ReviewTally({ review }: { review: { findings: readonly unknown[]; overallCorrectness: string } }) {
  return (
    <span className="muted">
      {review.findings.length} {review.findings.length === 1 ? 'finding' : 'findings'}
      {review.overallCorrectness !== '' ? ` · ${review.overallCorrectness}` : ''}
    </span>
  );
}

export function FindingRow({
  finding,
  threadId,
  itemId,
}: {
  finding: ReviewFinding;
  threadId: string;
  itemId: string;
}) {
  const controller = useController();
  const where = `${finding.path}:${finding.lineStart}${finding.lineEnd !== finding.lineStart ? `-${finding.lineEnd}` : ''}`;
  const title = finding.title.replace(/^\s*\[P[0-3]\]\s*/, '');
  return (
    <li className="finding" aria-label={`Finding: ${title}`}>
      <div className="finding-head">
        <span className={`finding-priority p${finding.priority}`}>P{finding.priority}</span>
        <span className="finding-title">{title}</span>
        <span className="muted finding-confidence" title="Confidence">
          {Math.round(finding.confidence * 100)}%
        </span>
      </div>
      {finding.body !== '' && <p className="finding-body">{finding.body}</p>}
      <div className="finding-actions">
        {finding.path !== '' && (
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Open ${where}`}
            onClick={() => changesActions.focus(finding.path, finding.lineStart, finding.lineEnd, { threadId, itemId })}
          >
            <Icon name="file" size={12} /> {where}
          </button>
        )}
        <button
          type="button"
          className="btn btn-small btn-primary"
          aria-label={`Fix this: ${title}`}
          onClick={() => void controller.send([{ type: 'text', text: fixMessage(finding) }])}
        >
          <Icon name="sparkle" size={12} /> Fix this
        </button>
      </div>
    </li>
  );
}

export function ReviewFindingsCell({ item, threadId }: { item: ExitedReviewModeItem; threadId: string }) {
  const review = item.weftReview;
  return (
    <section className="cell cell-tool review-result" aria-label="Review findings">
      <header className="review-result-head">
        <Icon name="list" size={14} />
        <strong>Review</strong>
        {review !== undefined && <ReviewTally review={review} />}
      </header>
      {review === undefined ? (
        <pre className="review-raw">{item.review}</pre>
      ) : (
        <>
          {review.findings.length === 0 && <p className="muted">No findings.</p>}
          <ol className="findings">
            {review.findings.map((f, i) => (
              <FindingRow key={i} finding={f} threadId={threadId} itemId={item.id} />
            ))}
          </ol>
          {review.overallExplanation !== '' && <p className="muted">{review.overallExplanation}</p>}
        </>
      )}
    </section>
  );
}
