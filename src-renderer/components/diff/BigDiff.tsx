// A diff too big to show without being asked (see diff-size.ts): its totals, and buttons to open it in the
// diff view anyway or to read it as plain unified text. A diff of ordinary size is shown as it is.
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Icon } from '../Icon';
import { describeDiffSize, isBigDiff, type DiffSize } from './diff-size';

type View = 'summary' | 'diff' | 'text';

export function BigDiffGate({
  size,
  text,
  label,
  children,
}: {
  size: DiffSize;
  /** The unified diff text, for the plain view. */
  text: string;
  /** What the diff is of, for screen readers ("Changes to src/app.ts"). */
  label: string;
  /** The diff view, made only when shown. */
  children: () => ReactNode;
}) {
  const [view, setView] = useState<View>('summary');
  if (!isBigDiff(size)) return <>{children()}</>;
  const { totals, shown } = describeDiffSize(size);
  return (
    <div className="big-diff">
      <div className="big-diff-summary" role="note" aria-label={`${label}: a large diff`}>
        <Icon name="diff" size={14} />
        <span className="big-diff-text">
          <strong>Large diff:</strong> {totals}.{shown !== null && <> {shown}</>}
        </span>
        <span className="big-diff-actions">
          <button type="button" className="btn btn-small" onClick={() => setView(view === 'diff' ? 'summary' : 'diff')}>
            {view === 'diff' ? 'Hide the diff' : 'Show the diff anyway'}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setView(view === 'text' ? 'summary' : 'text')}>
            {view === 'text' ? 'Hide the text' : 'Plain text'}
          </button>
        </span>
      </div>
      {view === 'diff' && children()}
      {view === 'text' && (
        <pre className="plain-diff" tabIndex={0} aria-label={`${label}, as unified diff text`}>
          {text}
        </pre>
      )}
    </div>
  );
}
