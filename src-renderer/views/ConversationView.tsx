// The open thread: header, the virtualized conversation, pending approvals, the composer.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { Icon, Spinner } from '../components/Icon';
import { ItemRow } from '../components/items/ItemRow';
import { CostChip } from '../components/CostChip';
import { TokenMeter } from '../components/TokenMeter';
import { ChangesButton } from './changes/ChangesPanel';
import { McpStatusChip } from './McpStatusChip';
import { TerminalButton } from './TerminalButton';
import { BrowserButton } from './BrowserPanel';
import { TurnEnd } from '../components/TurnEnd';
import { HookRow } from '../components/HookRunCell';
import { VirtualList } from '../components/VirtualList';
import type { VirtualListHandle } from '../components/VirtualList';
import { baseName } from '../components/format';
import { firstRequestFor } from '../store/approvals';
import { conversationRows } from '../store/rows';
import type { Row, RowsCache } from '../store/rows';
import { agentLabel, findThread, isArchived, runningTurn, threadTitle, userMessagesWith } from '../store/selectors';
import type { IncomingServerRequest } from '../client/types';
import { CommandApproval } from './approvals/CommandApproval';
import { mcpApprovalCall, McpToolApproval } from './approvals/McpToolApproval';
import { ReviewChanges } from './approvals/ReviewChanges';
import { UserInputDialog } from './approvals/UserInputRequest';
import { Composer } from './Composer';
import { NewThreadPlace } from './NewThreadPlace';
import { SetupNotice } from './settings/SetupNotice';
import { useApp, useController, useWeft } from '../store/app-context';
import { openHandoff, openWays } from '../store/worktree-ui';
import { ReviewModes } from '../components/ReviewModes';

/** Height guesses by row kind, close enough that the scrollbar does not jump much as rows get measured. */
const NO_ROWS: Row[] = [];

const ESTIMATES: Record<string, number> = {
  userMessage: 64,
  agentMessage: 96,
  reasoning: 36,
  plan: 120,
  commandExecution: 48,
  fileChange: 120,
  mcpToolCall: 44,
  collabAgentToolCall: 72,
  webSearch: 32,
  imageView: 32,
  contextCompaction: 32,
  browserAction: 40,
  hookPrompt: 32,
};

function PendingRequest({ threadId }: { threadId: string }) {
  const request = useWeft((s) => firstRequestFor(s.data, threadId));
  // A sub-agent's request is asked here too, saying whose it is.
  const from = useWeft((s) =>
    request === null || request.params.threadId === threadId
      ? null
      : agentLabel(findThread(s.data, request.params.threadId), request.params.threadId),
  );
  if (request === null) return null;
  if (from === null) return <RequestDialog request={request} />;
  return (
    <div className="request-from-agent" role="group" aria-label={`Request from sub-agent ${from}`}>
      <div className="request-from">
        <Icon name="user" size={12} /> Sub-agent <strong>{from}</strong> asks:
      </div>
      <RequestDialog request={request} />
    </div>
  );
}

function RequestDialog({ request }: { request: IncomingServerRequest }) {
  const controller = useController();
  const threadId = request.params.threadId;
  const setAside = useWeft((s) => s.ui.reviewsSetAside.includes(String(request.id)));
  // A question that asks for an MCP tool call's approval is drawn as an approval.
  const mcpCall = useWeft((s) =>
    request.method === 'item/tool/requestUserInput'
      ? mcpApprovalCall(
          request,
          s.data.conversations[threadId]?.turns[request.params.turnId]?.items[request.params.itemId]?.item,
        )
      : null,
  );
  switch (request.method) {
    case 'item/commandExecution/requestApproval':
      return <CommandApproval key={String(request.id)} request={request} />;
    case 'item/fileChange/requestApproval':
      // Closed with Esc, the review still waits: the dock says so and opens it again.
      return setAside ? (
        <div className="review-waiting" role="status">
          <Icon name="diff" size={14} /> Proposed changes wait for your review.
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => controller.setReviewAside(request.id, false)}
          >
            Review changes
          </button>
        </div>
      ) : (
        <ReviewChanges key={String(request.id)} request={request} />
      );
    case 'item/tool/requestUserInput':
      return mcpCall !== null ? (
        <McpToolApproval key={String(request.id)} request={request} call={mcpCall} />
      ) : (
        <UserInputDialog key={String(request.id)} request={request} />
      );
  }
}

/** Messages sent into the running turn that the conversation does not hold yet, shown at once. */
function SteeringMessages({ threadId }: { threadId: string }) {
  const waiting = useWeft(
    useShallow((s) =>
      s.ui.steering.filter(
        (m) => m.threadId === threadId && userMessagesWith(s.data.conversations[threadId], m.text) <= m.before,
      ),
    ),
  );
  if (waiting.length === 0) return null;
  return (
    <ul className="steering" aria-label="Messages for the running turn">
      {waiting.map((message) => (
        <li key={message.id} className="steering-message" data-state="steering">
          <span className="steering-label">
            <Icon name="arrowUp" size={12} /> Steering · the agent reads it at its next step
          </span>
          <span className="steering-text">{message.text}</span>
        </li>
      ))}
    </ul>
  );
}

function Conversation({ threadId }: { threadId: string }) {
  const { store } = useApp();
  // Only the conversation's shape (its turns and items, not their text) decides the rows, so streaming
  // text into an item does not re-render the list.
  const [turnIds, shape] = useWeft(
    useShallow((s) => [s.data.conversations[threadId]?.turnIds, s.data.conversations[threadId]?.shape] as const),
  );
  const list = useRef<VirtualListHandle>(null);
  const [atBottom, setAtBottom] = useState(true);
  const archived = useWeft((s) => isArchived(s.data, threadId));
  // The rows are rebuilt when the turns or their items change; the last build is kept (in state) so
  // unchanged turns keep their row objects and the list re-renders only what changed.
  const buildRows = (previous: RowsCache | null): RowsCache | null => {
    const conversation = store.getState().data.conversations[threadId];
    if (conversation === undefined || turnIds === undefined || shape === undefined) return null;
    return conversationRows(conversation, previous);
  };
  const [built, setBuilt] = useState(() => ({ threadId, turnIds, shape, cache: buildRows(null) }));
  let cache = built.cache;
  if (built.threadId !== threadId || built.turnIds !== turnIds || built.shape !== shape) {
    cache = buildRows(built.cache);
    setBuilt({ threadId, turnIds, shape, cache });
  }
  const rows = cache?.rows ?? NO_ROWS;
  const lastTurnId = turnIds?.[turnIds.length - 1];
  // Older turns put before the first one shown keep the view where it was: on that turn, not at the top.
  const firstTurnId = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    const before = firstTurnId.current;
    firstTurnId.current = turnIds?.[0];
    if (before === undefined || turnIds === undefined || turnIds.indexOf(before) <= 0) return;
    const anchor = rows.find((row) => row.kind !== 'older' && row.turnId === before);
    if (anchor !== undefined) list.current?.scrollToKey(anchor.key);
  }, [turnIds, rows]);

  const estimate = useCallback(
    (row: Row): number => {
      if (row.kind === 'turnEnd' || row.kind === 'older') return 44;
      if (row.kind === 'hook') return 36;
      const item = store.getState().data.conversations[threadId]?.turns[row.turnId]?.items[row.itemId]?.item;
      return item === undefined ? 60 : (ESTIMATES[item.type] ?? 60);
    },
    [store, threadId],
  );

  const renderRow = useCallback(
    (row: Row) =>
      row.kind === 'older' ? (
        <OlderTurns threadId={threadId} />
      ) : row.kind === 'hook' ? (
        <HookRow threadId={threadId} turnId={row.turnId} index={row.index} />
      ) : row.kind === 'item' ? (
        <ItemRow
          threadId={threadId}
          turnId={row.turnId}
          itemId={row.itemId}
          rowKey={row.key}
          latest={row.turnId === lastTurnId}
        />
      ) : (
        <TurnEnd threadId={threadId} turnId={row.turnId} canFork={!archived} />
      ),
    [threadId, lastTurnId, archived],
  );

  if (turnIds === undefined) return null;
  if (rows.length === 0) {
    return (
      <div className="conversation conversation-empty">
        <p className="muted">No messages yet.</p>
      </div>
    );
  }
  return (
    <div className="conversation">
      <VirtualList
        rows={rows}
        estimate={estimate}
        renderRow={renderRow}
        label="Conversation"
        className="conversation-scroll"
        bottomPadding={24}
        onAtBottomChange={setAtBottom}
        handle={list}
      />
      {!atBottom && (
        <button type="button" className="jump-latest" onClick={() => list.current?.scrollToBottom()}>
          <Icon name="chevronDown" size={14} /> Latest
        </button>
      )}
    </div>
  );
}

/**
 * The first row of a long thread shown from its newest turns: the turns before them load as this row
 * comes near the view (the list mounts it a little before it is seen), and the button loads them again
 * if that failed.
 */
function OlderTurns({ threadId }: { threadId: string }) {
  const controller = useController();
  const [loading, setLoading] = useState(false);
  const load = useCallback((): void => {
    setLoading(true);
    void controller.loadOlderTurns(threadId).finally(() => setLoading(false));
  }, [controller, threadId]);
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the load is the effect; its state only drives the spinner
    load();
  }, [load]);
  return (
    <div className="older-turns">
      <button type="button" className="btn btn-small" onClick={load} disabled={loading}>
        {loading ? <Spinner size={12} /> : <Icon name="chevronUp" size={14} />} Show earlier turns
      </button>
    </div>
  );
}

function ThreadHeader({ threadId }: { threadId: string }) {
  const controller = useController();
  const thread = useWeft((s) => findThread(s.data, threadId));
  const usage = useWeft((s) => s.data.conversations[threadId]?.tokenUsage ?? null);
  const cost = useWeft((s) => s.data.costs[threadId] ?? null);
  const archived = useWeft((s) => isArchived(s.data, threadId));
  const running = useWeft((s) => runningTurn(s.data.conversations[threadId]) !== null);
  const waiting = useWeft(
    (s) =>
      s.data.approvals.some((r) => r.params.threadId === threadId) ||
      (s.data.statuses[threadId]?.type === 'active' && (s.data.statuses[threadId]?.activeFlags.length ?? 0) > 0),
  );
  const contextWindow = useWeft((s) => s.ui.models.find((m) => m.id === s.ui.settings.model)?.contextWindow ?? null);
  const groupSize = useWeft((s) => {
    const group = thread?.weftGroupId;
    return group === undefined ? 0 : s.data.live.filter((t) => t.weftGroupId === group).length;
  });
  return (
    <header className="main-header">
      <div className="main-title">
        <h1 title={thread === undefined ? undefined : threadTitle(thread)}>
          {thread === undefined ? 'Thread' : threadTitle(thread)}
        </h1>
        {running &&
          (waiting ? (
            <span className="badge badge-waiting">Waiting for approval</span>
          ) : (
            <span className="badge badge-running">
              <Spinner size={11} /> Running
            </span>
          ))}
        {archived && <span className="badge">Archived</span>}
        {thread?.weftWorktree !== undefined && (
          <span
            className="badge badge-worktree"
            title={
              thread.cwd === thread.weftWorktree.path || thread.cwd.startsWith(`${thread.weftWorktree.path}/`)
                ? `Works in the worktree ${thread.weftWorktree.path}`
                : `Handed off: works in ${thread.cwd} now; its worktree is ${thread.weftWorktree.path}`
            }
          >
            <Icon name="fork" size={11} />
            <span className="sr-only">Worktree on branch </span>
            <span>{thread.weftWorktree.branch}</span>
          </span>
        )}
        {thread?.weftWorktree !== undefined && !archived && (
          <button
            type="button"
            className="link-button small"
            title="Move this thread's work to your local checkout, or your local changes into its worktree"
            onClick={() => openHandoff({ threadId, direction: 'toLocal' })}
          >
            <span className="link-label">Handoff</span>
          </button>
        )}
        {groupSize > 1 && thread?.weftGroupId !== undefined && (
          <button type="button" className="link-button small" onClick={() => openWays(thread.weftGroupId ?? null)}>
            <Icon name="columns" size={12} /> <span className="link-label">Compare {groupSize} ways</span>
          </button>
        )}
        {thread?.parentThreadId !== null && thread?.parentThreadId !== undefined && (
          <button
            type="button"
            className="link-button small"
            onClick={() => void controller.selectThread(thread.parentThreadId ?? '')}
          >
            <Icon name="user" size={12} />{' '}
            <span className="link-label">Sub-agent {agentLabel(thread, thread.id)} · open its parent</span>
          </button>
        )}
        {thread?.forkedFromId !== null && thread?.forkedFromId !== undefined && (
          <button
            type="button"
            className="link-button small"
            onClick={() => void controller.selectThread(thread.forkedFromId ?? '')}
          >
            <Icon name="fork" size={12} /> <span className="link-label">Forked from parent</span>
          </button>
        )}
      </div>
      <McpStatusChip />
      <TerminalButton />
      <ChangesButton />
      <BrowserButton />
      <TokenMeter usage={usage} contextWindow={contextWindow} />
      <CostChip cost={cost} />
    </header>
  );
}

export function ConversationView() {
  const controller = useController();
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const loading = useWeft((s) => s.ui.loadingThreadId !== null && s.ui.loadingThreadId === s.ui.activeThreadId);
  const loaded = useWeft((s) => threadId !== null && s.data.conversations[threadId] !== undefined);
  const archived = useWeft((s) => threadId !== null && isArchived(s.data, threadId));
  const cwd = useWeft((s) => s.data.cwd);
  const running = useWeft((s) => threadId !== null && runningTurn(s.data.conversations[threadId]) !== null);
  const inWorktree = useWeft((s) => s.ui.newThreadPlace.worktree);
  const ways = useWeft((s) => (s.ui.newThreadPlace.worktree ? s.ui.newThreadPlace.ways : 1));

  // Esc anywhere outside a text field or dialog stops the running turn.
  useEffect(() => {
    if (!running) return;
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      const target = event.target;
      if (
        target instanceof HTMLElement &&
        (target.closest('[role="dialog"], [role="menu"]') !== null || target.matches('input, select'))
      )
        return;
      void controller.stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, controller]);

  if (threadId === null) {
    return (
      <main className="main">
        <div className="main-header main-header-bare">
          <span className="spacer" />
          <McpStatusChip />
          <TerminalButton />
          <ChangesButton />
        </div>
        <div className="hero">
          <div className="hero-mark" aria-hidden="true">
            <Icon name="sparkle" size={22} />
          </div>
          <h1>What should we work on?</h1>
          <p className="muted">
            {ways > 1 ? `${ways} new worktree threads` : `New ${inWorktree ? 'worktree thread' : 'thread'}`} in{' '}
            <strong>{cwd === null ? 'no project' : baseName(cwd)}</strong>
            {ways > 1
              ? ', each in a git worktree of its own, all with the same message, compared side by side'
              : inWorktree
                ? ', in a git worktree of its own on a new branch'
                : ''}
            . Weft reads your code, runs commands in a sandbox and asks before it changes anything you have not allowed.
          </p>
          <ReviewModes />
        </div>
        <div className="composer-dock">
          <SetupNotice />
          {cwd !== null && <NewThreadPlace />}
          <Composer disabled={cwd === null} placeholder="Describe a task, ask a question…" />
        </div>
      </main>
    );
  }

  return (
    <main className="main">
      <ThreadHeader threadId={threadId} />
      {loading && !loaded ? (
        <div className="conversation conversation-empty">
          <Spinner size={18} label="Loading the thread" />
        </div>
      ) : (
        <Conversation key={threadId} threadId={threadId} />
      )}
      <div className="composer-dock">
        <SetupNotice />
        <SteeringMessages threadId={threadId} />
        <PendingRequest threadId={threadId} />
        {archived ? (
          <div className="archived-banner">
            <Icon name="archive" size={14} /> This thread is archived.
            <button type="button" className="btn btn-small" onClick={() => void controller.unarchive(threadId)}>
              Unarchive
            </button>
          </div>
        ) : (
          <Composer disabled={false} placeholder="Reply, or ask for something else…" />
        )}
      </div>
    </main>
  );
}
