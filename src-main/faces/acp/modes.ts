/**
 * The session modes Weft offers an ACP client, each one of Weft's presets of approval policy and
 * sandbox. The mode a session starts in is read from the thread's own settings (config.toml and the
 * project decide); `session/set_mode` changes them from the next turn on.
 */
import type { AskForApproval, SandboxMode, SandboxPolicy } from '../../../src-preload/protocol';
import type { SessionModeState } from '@agentclientprotocol/sdk';

export type ModeId = 'read-only' | 'auto' | 'full-access';

interface Mode {
  id: ModeId;
  name: string;
  description: string;
  approvalPolicy: AskForApproval;
  sandbox: SandboxMode;
}

export const MODES: readonly Mode[] = [
  {
    id: 'read-only',
    name: 'Read only',
    description: 'Reads files and runs read-only commands; asks before anything else.',
    approvalPolicy: 'on-request',
    sandbox: 'read-only',
  },
  {
    id: 'auto',
    name: 'Auto',
    description: 'Edits files and runs commands in the project sandbox; asks to go beyond it.',
    approvalPolicy: 'on-request',
    sandbox: 'workspace-write',
  },
  {
    id: 'full-access',
    name: 'Full access',
    description: 'Runs anything without asking, with no sandbox. Use with care.',
    approvalPolicy: 'never',
    sandbox: 'danger-full-access',
  },
];

export function isModeId(value: string): value is ModeId {
  return MODES.some((m) => m.id === value);
}

export function modeById(id: ModeId): Mode {
  const mode = MODES.find((m) => m.id === id);
  if (!mode) throw new Error(`unknown mode ${id}`);
  return mode;
}

/** The preset closest to a thread's settings: its sandbox decides. */
export function modeOf(sandbox: SandboxPolicy): ModeId {
  switch (sandbox.type) {
    case 'readOnly':
      return 'read-only';
    case 'workspaceWrite':
      return 'auto';
    case 'dangerFullAccess':
      return 'full-access';
  }
}

export function modeState(current: ModeId): SessionModeState {
  return {
    currentModeId: current,
    availableModes: MODES.map((m) => ({ id: m.id, name: m.name, description: m.description })),
  };
}
