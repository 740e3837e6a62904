// "Bring changes back": a fork's changes since it was made, as a patch on its parent's project, in the
// same review dialog as a patch the agent proposes (per-hunk Accept / Decline); Accept writes the hunks
// kept, says so, and shows what is left (the declined hunks). What a patch cannot carry is listed, and
// left alone.
import { useCallback, useEffect, useState } from 'react';
import type { WeftForksBringBackResult } from '../../../src-preload/protocol';
import { useController } from '../../store/app-context';
import { messageOf, openBringBack } from '../../store/checkpoint-ui';
import { PatchReviewDialog } from '../approvals/ReviewChanges';
import { acceptedCount, buildPatchAnswer } from '../approvals/patch-answer';
import type { HunkVerdict } from '../approvals/patch-answer';

type Loaded =
  { state: 'loading' } | { state: 'ready'; result: WeftForksBringBackResult } | { state: 'failed'; message: string };

export function BringBackDialog({ threadId }: { threadId: string }) {
  const controller = useController();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [verdicts, setVerdicts] = useState<ReadonlyMap<string, HunkVerdict>>(() => new Map());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const close = useCallback(() => openBringBack(null), []);

  useEffect(() => {
    let current = true;
    controller.request('weft/forks/bringBack', { threadId, dryRun: true }).then(
      (result) => current && setLoaded({ state: 'ready', result }),
      (e: unknown) => current && setLoaded({ state: 'failed', message: messageOf(e) }),
    );
    return () => {
      current = false;
    };
  }, [controller, threadId, generation]);

  const setVerdict = useCallback((key: string, verdict: HunkVerdict): void => {
    setVerdicts((old) => new Map(old).set(key, verdict));
  }, []);

  const result = loaded.state === 'ready' ? loaded.result : null;
  const changes = result?.changes ?? [];
  const counts = acceptedCount(changes, verdicts);

  const accept = async (): Promise<void> => {
    if (result === null) return;
    setBusy(true);
    setError(null);
    try {
      const answer = buildPatchAnswer(changes, verdicts, 'accept');
      const done = await controller.request('weft/forks/bringBack', {
        threadId,
        fingerprint: result.fingerprint,
        weftHunks: answer.weftHunks ?? null,
      });
      const n = done.applied.length;
      setNotice(`Brought back: ${n} ${n === 1 ? 'file' : 'files'} of the parent changed.`);
    } catch (e) {
      // The patch moved on (either side changed): show it again as it is now.
      setError(messageOf(e));
    }
    // Either way, show what is left to bring back now.
    setVerdicts(new Map());
    setLoaded({ state: 'loading' });
    setGeneration((g) => g + 1);
    setBusy(false);
  };

  const intro = (
    <div className="bring-back-intro">
      {result !== null && (
        <p>
          Applies the fork&apos;s changes to the parent&apos;s project,{' '}
          <code title={result.parentCwd}>{result.parentCwd}</code>. The fork keeps its files.
        </p>
      )}
      {loaded.state === 'failed' && (
        <p className="settings-status settings-status-error" role="alert">
          {loaded.message}
        </p>
      )}
      {notice !== null && (
        <p className="bring-back-done" role="status">
          {notice}
        </p>
      )}
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
      {result !== null && result.changes.length === 0 && (
        <p>The parent has every change of the fork that a patch can carry.</p>
      )}
      {result !== null && result.skipped.length > 0 && (
        <div role="group" aria-label="Left out">
          <p>Left out (a patch cannot carry them):</p>
          <ul className="bring-back-skipped">
            {result.skipped.map((s) => (
              <li key={s.path}>
                <code>{s.path}</code>: {s.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );

  return (
    <PatchReviewDialog
      title="Bring changes back"
      changes={loaded.state === 'loading' ? null : changes}
      cwd={result?.parentCwd ?? null}
      verdicts={verdicts}
      setVerdict={setVerdict}
      onClose={close}
      closeLabel="Close"
      loadingText="Comparing the fork with the state it started from…"
      askWhy={false}
      intro={intro}
      summary={
        changes.length === 0
          ? 'Nothing to apply.'
          : counts.total === 1 && counts.accepted === 1
            ? 'Accept applies its one hunk to the parent.'
            : counts.accepted === counts.total
              ? `Accept applies all ${counts.total} hunks to the parent.`
              : `Accept applies ${counts.accepted} of ${counts.total} hunks to the parent.`
      }
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {notice === null ? 'Cancel' : 'Close'}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy || changes.length === 0 || counts.accepted === 0}
            onClick={() => void accept()}
          >
            Accept
          </button>
        </>
      }
    />
  );
}
