// The `<permissions instructions>` block of the initial developer message: what the sandbox lets the
// model's commands do, and what the approval policy means for how it works. Weft's own wording.
import type { AskForApproval, SandboxPolicy } from '../../src-preload/protocol';

export interface PermissionsInput {
  sandboxPolicy: SandboxPolicy;
  approvalPolicy: AskForApproval;
  /** Folders commands may write to under workspace-write (cwd, configured roots, temp folders), in order. */
  writableRoots: readonly string[];
  /** Whether sandboxed commands may use the network. Ignored without a sandbox (always on). */
  networkAccess: boolean;
}

export const PERMISSIONS_OPEN = '<permissions instructions>';
export const PERMISSIONS_CLOSE = '</permissions instructions>';

type Access = SandboxPolicy['type'];

const ESCALATE = '`sandbox_permissions: "require_escalated"`';

export function permissionsInstructions(input: PermissionsInput): string {
  const access = input.sandboxPolicy.type;
  const sections = [
    sandboxText(access, input.writableRoots, input.networkAccess),
    approvalText(input.approvalPolicy, access, input.networkAccess),
    editsText(input.approvalPolicy, access),
  ];
  return `${PERMISSIONS_OPEN}\n${sections.join('\n\n')}\n${PERMISSIONS_CLOSE}`;
}

function sandboxText(access: Access, roots: readonly string[], network: boolean): string {
  const networkLine = network
    ? 'Network: on. Sandboxed commands can reach the network.'
    : 'Network: off. Sandboxed commands cannot reach the network, so downloads, package installs and calls to remote services fail.';
  switch (access) {
    case 'readOnly':
      return [
        'Sandbox: read-only. Your commands can read files but cannot create, change or delete any file.',
        networkLine,
      ].join('\n');
    case 'workspaceWrite': {
      const where =
        roots.length === 0
          ? 'Sandbox: workspace-write, with no writable folders configured. Your commands can read files but cannot write anywhere.'
          : `Sandbox: workspace-write. Your commands can read files anywhere and can write only inside these folders:\n${roots.map((r) => `- ${r}`).join('\n')}`;
      return `${where}\n${networkLine}`;
    }
    case 'dangerFullAccess':
      return 'Sandbox: none (full access). Your commands run with the same rights as the user: they can read and write any file and use the network.';
  }
}

function approvalText(policy: AskForApproval, access: Access, network: boolean): string {
  const sandboxed = access !== 'dangerFullAccess';
  const beyond = [
    access === 'readOnly' ? 'writing files' : 'writing outside the writable folders',
    ...(network ? [] : ['network access']),
  ].join(', ');
  switch (policy) {
    case 'on-request':
      return sandboxed
        ? [
            'Approvals: on-request. Commands run inside the sandbox without asking the user.',
            `When a command truly needs more than the sandbox allows (${beyond}), run it with ${ESCALATE} and a \`justification\`: one short question that tells the user what the command does and why it must leave the sandbox. The user approves or rejects it.`,
            'Escalate only when the task needs it, not to save a step. A command that failed because of the sandbox ("permission denied", "read-only file system", network errors) may be rerun with escalation. Never try to get around a rejection.',
          ].join('\n')
        : 'Approvals: on-request. There is no sandbox, so commands run without asking and you never need `sandbox_permissions`.';
    case 'untrusted':
      return [
        'Approvals: untrusted. Only commands known to be safe and read-only (such as `ls`, `cat`, `rg`, `git status`, `git diff`) run without asking; the user reviews most other commands before they run.',
        'Expect to wait for each review: prefer a few purposeful commands over many small ones, and say why you need each.',
        ...(sandboxed
          ? [
              `A command that needs more than the sandbox allows can be requested with ${ESCALATE} and a \`justification\` (one short question for the user).`,
            ]
          : []),
      ].join('\n');
    case 'on-failure':
      return sandboxed
        ? [
            'Approvals: on-failure. Commands run inside the sandbox without asking.',
            'If a command fails because of the sandbox, the user is asked whether to rerun it outside the sandbox, and it is rerun if they approve. You do not need to set `sandbox_permissions` yourself.',
          ].join('\n')
        : 'Approvals: on-failure. There is no sandbox, so commands run without asking and nothing waits for approval.';
    case 'never':
      return sandboxed
        ? [
            `Approvals: never. The user is never asked, and nothing can be escalated: ${ESCALATE} is always refused.`,
            'Work within the sandbox. If part of the task cannot be done inside it, do the rest and tell the user exactly what is left for them to do.',
          ].join('\n')
        : 'Approvals: never. There is no sandbox and the user is never asked: commands run as they are, so take care with anything destructive or irreversible.';
  }
}

function editsText(policy: AskForApproval, access: Access): string {
  if (policy === 'untrusted')
    return 'File edits: the user reviews every edit made with `apply_patch` before it is written.';
  switch (access) {
    case 'dangerFullAccess':
      return 'File edits: edits made with `apply_patch` are written without asking.';
    case 'readOnly':
      return policy === 'never'
        ? 'File edits: edits made with `apply_patch` are refused, because no folder is writable and approval cannot be asked for.'
        : "File edits: every edit made with `apply_patch` needs the user's approval, because no folder is writable.";
    case 'workspaceWrite':
      return policy === 'never'
        ? 'File edits: edits made with `apply_patch` inside the writable folders are written without asking; edits anywhere else are refused.'
        : "File edits: edits made with `apply_patch` inside the writable folders are written without asking; edits anywhere else need the user's approval.";
  }
}
