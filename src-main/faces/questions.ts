/**
 * Approvals and questions as forms a host can show: the form-mode elicitation MCP defines (ACP's
 * `elicitation/create` takes the same shape), and the host's answer turned back into Weft's decision.
 * A host that shows no fields and only offers accept / decline / cancel still gives a full answer:
 * accept = allow once, decline = refuse (the model goes on), cancel = refuse and stop the turn.
 */
import { z } from 'zod';
import type {
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalParams,
  FileChangeApprovalDecision,
  FileChangeItem,
  FileChangeRequestApprovalParams,
  ToolRequestUserInputParams,
  ToolRequestUserInputResult,
} from '../../src-preload/protocol';
import { subAgentLabel, type SubAgentAsking } from './sub-agents';

/** A flat JSON Schema object of primitive fields, as form elicitations require. */
export interface FormSchema {
  type: 'object';
  properties: Record<string, FormField>;
  required?: string[];
}

export type FormField =
  | { type: 'string'; title?: string; description?: string; enum?: string[]; default?: string }
  | { type: 'boolean'; title?: string; description?: string; default?: boolean };

export interface ElicitationForm {
  message: string;
  requestedSchema: FormSchema;
}

/** What a host answers to an elicitation (MCP `ElicitResult`, ACP `CreateElicitationResponse`). */
export const ElicitationAnswer = z.object({
  action: z.string(),
  content: z.record(z.string(), z.unknown()).nullish(),
});
export type ElicitationAnswer = z.infer<typeof ElicitationAnswer>;

/** Longest diff text put into an approval message; the rest is summarised by line count. */
const MAX_DIFF_CHARS = 8_000;

const DECISION_FIELD: FormField = {
  type: 'string',
  title: 'Decision',
  description:
    'accept: allow this once; acceptForSession: allow it and the same again for the rest of this thread; decline: refuse, the agent goes on',
  enum: ['accept', 'acceptForSession', 'decline'],
  default: 'accept',
};

/** Who asks: Weft's own agent, or one of its sub-agents by name. */
function asker(from: SubAgentAsking | null): string {
  return from === null ? 'Weft' : `${subAgentLabel(from)} (a sub-agent of this Weft thread)`;
}

export function commandApprovalForm(
  params: CommandExecutionRequestApprovalParams,
  from: SubAgentAsking | null = null,
): ElicitationForm {
  const lines = [`${asker(from)} wants to run a command in ${params.cwd}:`, '', `    ${params.command}`];
  if (params.reason) lines.push('', `Reason: ${params.reason}`);
  lines.push('', 'Accept to run it, decline to refuse (the agent goes on), cancel to stop the turn.');
  return { message: lines.join('\n'), requestedSchema: { type: 'object', properties: { decision: DECISION_FIELD } } };
}

export function patchApprovalForm(
  params: FileChangeRequestApprovalParams,
  item: FileChangeItem | undefined,
  from: SubAgentAsking | null = null,
): ElicitationForm {
  const changes = item?.changes ?? [];
  const lines = [
    changes.length === 1
      ? `${asker(from)} wants to change a file:`
      : `${asker(from)} wants to change ${changes.length || 'some'} files:`,
  ];
  for (const change of changes)
    lines.push(
      `  ${change.kind.type} ${change.path}${change.kind.type === 'update' && change.kind.move_path ? ` -> ${change.kind.move_path}` : ''}`,
    );
  if (params.grantRoot) lines.push('', `It also asks to write under ${params.grantRoot} for the rest of this thread.`);
  if (params.reason) lines.push('', `Reason: ${params.reason}`);
  const diff = changes.map((c) => c.diff).join('\n');
  if (diff !== '') {
    const shown =
      diff.length > MAX_DIFF_CHARS
        ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (${diff.slice(MAX_DIFF_CHARS).split('\n').length} more lines)`
        : diff;
    lines.push('', shown);
  }
  lines.push('', 'Accept to apply it, decline to refuse (the agent goes on), cancel to stop the turn.');
  return { message: lines.join('\n'), requestedSchema: { type: 'object', properties: { decision: DECISION_FIELD } } };
}

function chosenDecision(answer: ElicitationAnswer): 'accept' | 'acceptForSession' | 'decline' | 'cancel' {
  if (answer.action === 'decline') return 'decline';
  if (answer.action !== 'accept') return 'cancel';
  const picked = answer.content?.['decision'];
  if (picked === 'acceptForSession' || picked === 'decline') return picked;
  return 'accept';
}

export function commandDecision(answer: ElicitationAnswer): CommandExecutionApprovalDecision {
  return chosenDecision(answer);
}

export function patchDecision(answer: ElicitationAnswer): FileChangeApprovalDecision {
  return chosenDecision(answer);
}

/** One field per question, keyed by the question's id. */
export function questionsForm(params: ToolRequestUserInputParams, from: SubAgentAsking | null = null): ElicitationForm {
  const properties: Record<string, FormField> = {};
  for (const q of params.questions) {
    const labels = q.options?.map((o) => o.label) ?? [];
    const described = q.options?.map((o) => `${o.label}: ${o.description}`).join('; ');
    properties[q.id] =
      labels.length > 0 && !q.isOther
        ? { type: 'string', title: q.header, description: q.question, enum: labels }
        : { type: 'string', title: q.header, description: described ? `${q.question} (${described})` : q.question };
  }
  const message =
    params.questions.length === 1
      ? (params.questions[0]?.question ?? 'The agent has a question.')
      : 'The agent has some questions.';
  return {
    message: from === null ? message : `${asker(from)} asks: ${message}`,
    requestedSchema: { type: 'object', properties },
  };
}

/** The answers of an accepted form; declined or cancelled forms answer nothing. */
export function questionsAnswer(
  params: ToolRequestUserInputParams,
  answer: ElicitationAnswer,
): ToolRequestUserInputResult {
  const answers: ToolRequestUserInputResult['answers'] = {};
  if (answer.action !== 'accept') return { answers };
  for (const q of params.questions) {
    const value = answer.content?.[q.id];
    if (typeof value === 'string' && value.trim() !== '') answers[q.id] = { answers: [value] };
    else if (Array.isArray(value)) answers[q.id] = { answers: value.filter((v): v is string => typeof v === 'string') };
  }
  return { answers };
}
