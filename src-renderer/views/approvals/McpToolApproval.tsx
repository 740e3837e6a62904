// "Approve MCP tool": an MCP tool call waiting for the person's yes (see `MCP_TOOL_APPROVAL`), drawn and
// answered like a command approval: the server, the tool and its arguments; it takes focus, and Y allows,
// A allows for the session, N declines.
import { useEffect, useId, useRef } from 'react';
import type { KeyboardEvent } from 'react';
import { MCP_TOOL_APPROVAL, type McpToolCallItem, type ThreadItem } from '../../../src-preload/protocol';
import type { IncomingServerRequest } from '../../client/types';
import { Icon } from '../../components/Icon';
import { useController } from '../../store/app-context';

type UserInputRequest = Extract<IncomingServerRequest, { method: 'item/tool/requestUserInput' }>;

/** The call `request` asks about, when it is an MCP tool approval; null for any other question. */
export function mcpApprovalCall(request: UserInputRequest, item: ThreadItem | undefined): McpToolCallItem | null {
  const [question, ...rest] = request.params.questions;
  if (question === undefined || rest.length > 0 || question.id !== MCP_TOOL_APPROVAL.questionId) return null;
  return item?.type === 'mcpToolCall' && item.id === request.params.itemId ? item : null;
}

const ANSWERS = [
  { label: MCP_TOOL_APPROVAL.allow, text: 'Allow', key: 'Y', primary: true },
  { label: MCP_TOOL_APPROVAL.allowForSession, text: 'Allow for session', key: 'A', primary: false },
  { label: MCP_TOOL_APPROVAL.allowAlways, text: 'Always allow', key: null, primary: false },
] as const;

export function McpToolApproval({ request, call }: { request: UserInputRequest; call: McpToolCallItem }) {
  const controller = useController();
  const titleId = useId();
  const card = useRef<HTMLElement>(null);
  const question = request.params.questions[0];
  const offered = new Set((question?.options ?? []).map((option) => option.label));
  const destructive = question?.question.endsWith(MCP_TOOL_APPROVAL.destructiveNote) === true;
  const answer = (label: string): void =>
    controller.answerUserInput(request, { [MCP_TOOL_APPROVAL.questionId]: [label] });
  // The card takes focus when it appears, so its keys work at once and a screen reader reads it.
  useEffect(() => {
    card.current?.focus();
  }, []);
  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toUpperCase();
    const label = key === 'N' ? MCP_TOOL_APPROVAL.decline : ANSWERS.find((a) => a.key !== null && a.key === key)?.label;
    if (label === undefined || !offered.has(label)) return;
    event.preventDefault();
    answer(label);
  };
  return (
    <section
      className="approval"
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      tabIndex={-1}
      ref={card}
      onKeyDown={onKeyDown}
    >
      <header className="approval-head">
        <Icon name="plug" />
        <h2 id={titleId}>Approve MCP tool</h2>
      </header>
      <pre className="approval-command is-tool">
        <code>
          {call.server} · {call.tool}
        </code>
      </pre>
      <dl className="approval-facts">
        <dt>Arguments</dt>
        <dd>
          <pre className="approval-arguments" aria-label="Arguments">
            {JSON.stringify(call.arguments, null, 2)}
          </pre>
        </dd>
        <dt>Safety</dt>
        <dd className={`safety safety-${destructive ? 'danger' : 'caution'}`}>
          {destructive
            ? 'The server says this tool may change or delete things.'
            : 'Runs in the MCP server’s own process, outside the sandbox: it can do whatever the server can.'}
        </dd>
      </dl>
      <div className="approval-actions">
        {ANSWERS.filter((a) => offered.has(a.label)).map((a) => (
          <button
            key={a.label}
            type="button"
            className={a.primary ? 'btn btn-primary' : 'btn'}
            aria-keyshortcuts={a.key ?? undefined}
            title={
              a.key === null
                ? 'Remember it (Settings → Remembered approvals): never ask again for this tool'
                : undefined
            }
            onClick={() => answer(a.label)}
          >
            {a.text}
            {a.key !== null && (
              <>
                {' '}
                <kbd className="shortcut-key" aria-hidden="true">
                  {a.key}
                </kbd>
              </>
            )}
          </button>
        ))}
        <span className="spacer" />
        {offered.has(MCP_TOOL_APPROVAL.decline) && (
          <button type="button" className="btn" aria-keyshortcuts="N" onClick={() => answer(MCP_TOOL_APPROVAL.decline)}>
            Decline{' '}
            <kbd className="shortcut-key" aria-hidden="true">
              N
            </kbd>
          </button>
        )}
      </div>
    </section>
  );
}
