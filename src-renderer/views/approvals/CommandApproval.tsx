// "Approve command": what the agent wants to run, where and why, and the person's answer.
import { useEffect, useId, useRef } from 'react';
import type { KeyboardEvent } from 'react';
import {
  commandApprovalDecisions,
  type CommandAction,
  type CommandExecutionApprovalDecision,
  type CommandExecutionRequestApprovalParams,
  type SandboxMode,
} from '../../../src-preload/protocol';
import type { IncomingServerRequest } from '../../client/types';
import { relativePath } from '../../components/format';
import { Icon } from '../../components/Icon';
import { useController, useWeft } from '../../store/app-context';

type CommandRequest = Extract<IncomingServerRequest, { method: 'item/commandExecution/requestApproval' }>;

const READ_ONLY_ACTIONS: ReadonlySet<CommandAction['type']> = new Set(['read', 'listFiles', 'search']);

/** One sentence on what approving risks, from the request and the sandbox the thread runs in. */
export function safetyHint(
  params: CommandExecutionRequestApprovalParams,
  sandbox: SandboxMode | null,
): { tone: 'calm' | 'caution' | 'danger'; text: string } {
  const reason = params.reason ?? '';
  if (reason.startsWith('dangerous command')) {
    return { tone: 'danger', text: `Potentially destructive: ${reason.replace(/^dangerous command:\s*/, '')}.` };
  }
  const actions = params.commandActions ?? [];
  if (actions.length > 0 && actions.every((a) => READ_ONLY_ACTIONS.has(a.type))) {
    return { tone: 'calm', text: 'Looks read-only: it reads, lists or searches files.' };
  }
  if (sandbox === 'danger-full-access' || /without a sandbox|outside the sandbox|unsandboxed/.test(reason)) {
    return { tone: 'caution', text: 'Runs without a sandbox, with your permissions: it can change any file you can.' };
  }
  if (sandbox === 'read-only') return { tone: 'caution', text: 'Runs in the read-only sandbox once approved.' };
  return { tone: 'caution', text: 'May change files in the project; runs in the sandbox once approved.' };
}

/** Keys that answer the focused card: Y accept, A accept for the session, N decline. */
const SHORTCUTS: Record<string, 'accept' | 'acceptForSession' | 'decline'> = {
  y: 'accept',
  a: 'acceptForSession',
  n: 'decline',
};
const SHORTCUT_OF: Partial<Record<string, string>> = { accept: 'Y', acceptForSession: 'A', decline: 'N' };

/**
 * The answers the card offers, in order: the request's `availableDecisions` when it lists them, else the
 * ones the server offers (`commandApprovalDecisions`: "Always allow" only when a prefix is proposed).
 */
export function offeredDecisions(params: CommandExecutionRequestApprovalParams): CommandExecutionApprovalDecision[] {
  if (params.availableDecisions !== undefined && params.availableDecisions !== null) return params.availableDecisions;
  return commandApprovalDecisions(params.proposedExecpolicyAmendment ?? null);
}

function DecisionButton({
  decision,
  onAnswer,
}: {
  decision: CommandExecutionApprovalDecision;
  onAnswer: (decision: CommandExecutionApprovalDecision) => void;
}) {
  if (typeof decision === 'string') {
    const key = SHORTCUT_OF[decision];
    const label = {
      accept: 'Accept',
      acceptForSession: 'Accept for session',
      decline: 'Decline',
      cancel: 'Cancel turn',
    }[decision];
    const className =
      decision === 'accept' ? 'btn btn-primary' : decision === 'cancel' ? 'btn btn-danger-ghost' : 'btn';
    return (
      <button type="button" className={className} aria-keyshortcuts={key} onClick={() => onAnswer(decision)}>
        {label}
        {key !== undefined && (
          <>
            {' '}
            <kbd className="shortcut-key" aria-hidden="true">
              {key}
            </kbd>
          </>
        )}
      </button>
    );
  }
  if ('acceptWithExecpolicyAmendment' in decision) {
    return (
      <button type="button" className="btn" onClick={() => onAnswer(decision)}>
        Always allow <code>{decision.acceptWithExecpolicyAmendment.execpolicy_amendment.join(' ')}</code>
      </button>
    );
  }
  const { host, action } = decision.applyNetworkPolicyAmendment.network_policy_amendment;
  return (
    <button type="button" className="btn" onClick={() => onAnswer(decision)}>
      {action === 'allow' ? 'Allow network access to' : 'Deny network access to'} <code>{host}</code>
    </button>
  );
}

export function CommandApproval({ request }: { request: CommandRequest }) {
  const controller = useController();
  const cwd = useWeft((s) => s.data.cwd);
  const sandbox = useWeft((s) => s.ui.settings.sandbox);
  const titleId = useId();
  const { params } = request;
  const offered = offeredDecisions(params);
  const hint = safetyHint(params, sandbox);
  const answer = controller.answerCommand.bind(null, request);
  const card = useRef<HTMLElement>(null);
  // The card takes focus when it appears, so its shortcuts work at once and a screen reader reads it.
  useEffect(() => {
    card.current?.focus();
  }, []);
  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    if (
      event.ctrlKey ||
      event.metaKey ||
      event.altKey ||
      event.target instanceof HTMLTextAreaElement ||
      event.target instanceof HTMLInputElement
    )
      return;
    const decision = SHORTCUTS[event.key.toLowerCase()];
    if (decision === undefined || !offered.includes(decision)) return;
    event.preventDefault();
    answer(decision);
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
        <Icon name="shield" />
        <h2 id={titleId}>Approve command</h2>
      </header>
      <pre className="approval-command">
        <code>{params.command}</code>
      </pre>
      <dl className="approval-facts">
        <dt>Folder</dt>
        <dd>
          <code>{relativePath(params.cwd, cwd) === '.' ? params.cwd : relativePath(params.cwd, cwd)}</code>
        </dd>
        {params.reason !== undefined && params.reason !== null && params.reason !== '' && (
          <>
            <dt>Reason</dt>
            <dd>{params.reason}</dd>
          </>
        )}
        <dt>Safety</dt>
        <dd className={`safety safety-${hint.tone}`}>{hint.text}</dd>
      </dl>
      <div className="approval-actions">
        {offered
          .filter((d) => d !== 'decline' && d !== 'cancel')
          .map((decision, i) => (
            <DecisionButton key={i} decision={decision} onAnswer={answer} />
          ))}
        <span className="spacer" />
        {offered
          .filter((d) => d === 'decline' || d === 'cancel')
          .map((decision) => (
            <DecisionButton key={String(decision)} decision={decision} onAnswer={answer} />
          ))}
      </div>
    </section>
  );
}
