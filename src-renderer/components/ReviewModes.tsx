// Which approval mode reviews the agent's changes when: shown on the first-run screens (the welcome
// screen, and a thread with no messages yet), so the review is found without reading the README.
import { APPROVAL_LABELS } from './policy-labels';

export function ReviewModes() {
  return (
    <section className="review-modes" aria-label="Review modes">
      <h2>How you review the agent’s changes</h2>
      <ul>
        <li>
          <strong>In every mode</strong>, after a turn: <em>View changes</em> under it shows what it changed (its edits
          and what its commands changed). At each hunk, <em>Keep</em> or <em>Undo hunk</em> (just those lines go back),
          with a reason the agent gets with your next message; mark each file <em>Viewed</em>.
        </li>
        <li>
          <strong>{APPROVAL_LABELS.untrusted}</strong>: every edit is also shown hunk by hunk before it is written, to
          accept or decline.
        </li>
        <li>
          <strong>{APPROVAL_LABELS['on-request']}</strong> (the default) and{' '}
          <strong>{APPROVAL_LABELS['on-failure']}</strong>: edits inside the project are written at once; one outside it
          is shown before it is written. <strong>{APPROVAL_LABELS.never}</strong>: nothing is asked.
        </li>
      </ul>
    </section>
  );
}
