// One conversation item, chosen by its type.
import { memo } from 'react';
import { assertNever } from '../../../src-preload/protocol';
import { useWeft } from '../../store/app-context';
import { BrowserCell } from './BrowserCell';
import { CollabCell } from './CollabCell';
import { FileChangeCell } from './FileChangeCell';
import { AgentMessageCell, PlanItemCell, ReasoningCell, UserMessageCell } from './MessageCells';
import { EnteredReviewCell, ReviewFindingsCell } from './ReviewCells';
import { CommandCell, CompactionCell, HookPromptCell, ImageViewCell, McpToolCell, WebSearchCell } from './ToolCells';

export interface ItemRowProps {
  threadId: string;
  turnId: string;
  itemId: string;
  rowKey: string;
  /** The item belongs to the conversation's latest turn (its details start open). */
  latest: boolean;
}

export const ItemRow = memo(function ItemRow({ threadId, turnId, itemId, rowKey, latest }: ItemRowProps) {
  const entry = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.items[itemId]);
  const cwd = useWeft((s) => s.data.cwd);
  const waiting = useWeft((s) =>
    s.data.approvals.some((r) => r.params.threadId === threadId && r.params.itemId === itemId),
  );
  if (entry === undefined) return null;
  const { item, completed } = entry;
  switch (item.type) {
    case 'userMessage':
      return <UserMessageCell item={item} />;
    case 'agentMessage':
      // A message completed empty says nothing (one a failed model attempt began and the retry withdrew).
      if (completed && item.text === '') return null;
      return <AgentMessageCell item={item} completed={completed} />;
    case 'reasoning':
      return <ReasoningCell item={item} completed={completed} rowKey={rowKey} />;
    case 'plan':
      return <PlanItemCell item={item} completed={completed} />;
    case 'commandExecution':
      return (
        <CommandCell item={item} output={entry.output} cwd={cwd} rowKey={rowKey} latest={latest} waiting={waiting} />
      );
    case 'fileChange':
      return <FileChangeCell item={item} cwd={cwd} rowKey={rowKey} latest={latest} />;
    case 'mcpToolCall':
      return <McpToolCell item={item} rowKey={rowKey} progress={entry.progress ?? null} />;
    case 'collabAgentToolCall':
      return <CollabCell item={item} />;
    case 'webSearch':
      return <WebSearchCell item={item} />;
    case 'imageView':
      return <ImageViewCell item={item} cwd={cwd} />;
    case 'contextCompaction':
      return <CompactionCell item={item} />;
    case 'hookPrompt':
      return <HookPromptCell item={item} />;
    case 'enteredReviewMode':
      return <EnteredReviewCell item={item} />;
    case 'exitedReviewMode':
      return <ReviewFindingsCell item={item} threadId={threadId} />;
    case 'browserAction':
      return <BrowserCell item={item} />;
  }
  return assertNever(item);
});
