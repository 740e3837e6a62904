// A turn's diff text for a view that shows it. The page is told only that a diff changed
// (`weft/turn/diffChanged`), so a shown diff that went stale is read again (`weft/turn/diff`).
import { useEffect } from 'react';
import type { WeftDiffCut } from '../../src-preload/protocol';
import { useController, useWeft } from '../store/app-context';

export interface TurnDiff {
  /** The text as last read (null: none, or not read yet). */
  diff: string | null;
  cut: WeftDiffCut | null;
  /** A newer diff is being read. */
  stale: boolean;
}

export function useTurnDiff(threadId: string | null, turnId: string | null): TurnDiff {
  const controller = useController();
  const turn = useWeft((s) =>
    threadId === null || turnId === null ? undefined : s.data.conversations[threadId]?.turns[turnId],
  );
  const stale = turn?.diffStale ?? false;
  useEffect(() => {
    if (stale && threadId !== null && turnId !== null) controller.loadTurnDiff(threadId, turnId);
  }, [controller, stale, threadId, turnId]);
  return { diff: turn?.diff ?? null, cut: turn?.diffCut ?? null, stale };
}
