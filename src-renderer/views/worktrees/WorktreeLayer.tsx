// The worktree dialogs that float over the conversation: Handoff, and the comparison of a "try N ways" group.
import { useWorktreeUi } from '../../store/worktree-ui';
import { CompareWaysDialog } from './CompareWaysDialog';
import { HandoffDialog } from './HandoffDialog';

export function WorktreeLayer() {
  const handoff = useWorktreeUi((s) => s.handoff);
  const ways = useWorktreeUi((s) => s.ways);
  return (
    <>
      {ways !== null && <CompareWaysDialog key={ways} groupId={ways} />}
      {handoff !== null && <HandoffDialog key={`${handoff.threadId}:${handoff.direction}`} target={handoff} />}
    </>
  );
}
