// Approval policies and sandbox modes in words that say what they do. The protocol's ids
// (`untrusted`, `on-request`, …) never appear in the UI; approval reasons from Weft use these labels too.
import type { AskForApproval, ReasoningEffort, SandboxMode } from '../../src-preload/protocol';

export const APPROVAL_LABELS: Record<AskForApproval, string> = {
  untrusted: 'Ask unless read-only',
  'on-request': 'Ask to leave the sandbox',
  'on-failure': 'Ask if the sandbox blocks',
  never: 'Never ask',
};

export const APPROVAL_DESCRIPTIONS: Record<AskForApproval, string> = {
  untrusted: 'Asks before every edit and every command that is not known to be read-only.',
  'on-request': 'Runs commands in the sandbox without asking; asks when the agent wants to go outside it.',
  'on-failure': 'Runs commands in the sandbox; asks to run one again without it when the sandbox blocks it.',
  never: 'Never asks. Anything the sandbox does not allow fails, and the agent is told why.',
};

export const SANDBOX_LABELS: Record<SandboxMode, string> = {
  'read-only': 'Read only',
  'workspace-write': 'Write in the project',
  'danger-full-access': 'Full access',
};

export const SANDBOX_DESCRIPTIONS: Record<SandboxMode, string> = {
  'read-only': 'Commands can read files but change nothing.',
  'workspace-write': 'Commands can change files in the project (not .git), with no network unless allowed.',
  'danger-full-access': 'No sandbox: commands run with your permissions and can change any file you can.',
};

export const EFFORT_LABELS: Record<ReasoningEffort, string> = {
  none: 'No reasoning',
  minimal: 'Minimal',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  xhigh: 'Extra high',
};

/** A warning for settings that take the person out of the loop, or null. */
export function riskWarning(approval: AskForApproval | null, sandbox: SandboxMode | null): string | null {
  if (sandbox === 'danger-full-access' && approval === 'never')
    return 'Full access with Never ask: the agent can change or delete anything you can, without asking.';
  if (sandbox === 'danger-full-access')
    return 'Full access: commands run without a sandbox and can change any file you can.';
  if (approval === 'never') return 'Never ask: you will not be asked before commands or edits run.';
  return null;
}
