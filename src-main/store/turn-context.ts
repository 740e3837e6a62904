// `turn_context` lines: the settings a turn ran with. The rollout keeps Codex's snake_case sandbox policy
// (`{type: "workspace-write", writable_roots, network_access, …}`); the app protocol uses camelCase tags.
import { z } from 'zod';
import { SandboxPolicy, TurnContextPayload, type RolloutItemInput } from '../../src-preload/protocol';

/** What the recorder is told at the start of each turn. */
export interface TurnContextInput {
  turnId: string;
  cwd: string;
  approvalPolicy: string;
  sandboxPolicy: unknown;
  model: string;
  effort: string | null;
  summary: string | null;
  /** Whether the model could ask the person (`TurnSettings.questions`; absent = it could); written only when not. */
  questions?: boolean;
}

/** The last `turn_context` of a thread, as read back. `sandboxPolicy` null when it is not one Weft knows. */
export interface RecordedTurnContext {
  turnId: string | null;
  cwd: string;
  approvalPolicy: string;
  sandboxPolicy: SandboxPolicy | null;
  model: string;
  effort: string | null;
  summary: string | null;
  /** False: the turn could ask nobody (`weft_questions`); null: the line does not say (the config decides). */
  questions: boolean | null;
  /** The line's payload as written (other fields included). */
  raw: TurnContextPayload;
}

const RolloutSandbox = z.looseObject({
  type: z.string(),
  writable_roots: z.array(z.string()).nullish(),
  network_access: z.boolean().nullish(),
  exclude_tmpdir_env_var: z.boolean().nullish(),
  exclude_slash_tmp: z.boolean().nullish(),
});

/** The rollout form of a sandbox policy; an object that is not a protocol policy is kept as given. */
export function toRolloutSandboxPolicy(value: unknown): Record<string, unknown> {
  const parsed = SandboxPolicy.safeParse(value);
  if (!parsed.success) {
    const record = z.record(z.string(), z.unknown()).safeParse(value);
    return record.success ? record.data : { type: String(value) };
  }
  const p = parsed.data;
  switch (p.type) {
    case 'readOnly':
      return p.networkAccess === undefined
        ? { type: 'read-only' }
        : { type: 'read-only', network_access: p.networkAccess };
    case 'dangerFullAccess':
      return { type: 'danger-full-access' };
    case 'workspaceWrite':
      return {
        type: 'workspace-write',
        writable_roots: p.writableRoots ?? [],
        network_access: p.networkAccess ?? false,
        exclude_tmpdir_env_var: p.excludeTmpdirEnvVar ?? false,
        exclude_slash_tmp: p.excludeSlashTmp ?? false,
      };
  }
}

/** The protocol form of a rollout sandbox policy, or null when it is none Weft knows. */
export function fromRolloutSandboxPolicy(value: Record<string, unknown>): SandboxPolicy | null {
  const parsed = RolloutSandbox.safeParse(value);
  if (!parsed.success) return null;
  const p = parsed.data;
  switch (p.type) {
    case 'read-only':
      return typeof p.network_access === 'boolean'
        ? { type: 'readOnly', networkAccess: p.network_access }
        : { type: 'readOnly' };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
    case 'workspace-write':
      return {
        type: 'workspaceWrite',
        writableRoots: p.writable_roots ?? [],
        networkAccess: p.network_access ?? false,
        excludeTmpdirEnvVar: p.exclude_tmpdir_env_var ?? false,
        excludeSlashTmp: p.exclude_slash_tmp ?? false,
      };
    default:
      return null;
  }
}

export function turnContextPayload(
  ctx: TurnContextInput,
): Extract<RolloutItemInput, { type: 'turn_context' }>['payload'] {
  return {
    turn_id: ctx.turnId,
    cwd: ctx.cwd,
    approval_policy: ctx.approvalPolicy,
    sandbox_policy: toRolloutSandboxPolicy(ctx.sandboxPolicy),
    model: ctx.model,
    effort: ctx.effort,
    summary: ctx.summary,
    // Weft's own, only when off (a turn that could ask is written as Codex writes it).
    ...(ctx.questions === false ? { weft_questions: false } : {}),
  };
}

export function recordedTurnContext(payload: unknown): RecordedTurnContext | null {
  const parsed = TurnContextPayload.safeParse(payload);
  if (!parsed.success) return null;
  const raw = parsed.data;
  return {
    turnId: raw.turn_id ?? null,
    cwd: raw.cwd,
    approvalPolicy: raw.approval_policy,
    sandboxPolicy: fromRolloutSandboxPolicy(raw.sandbox_policy),
    model: raw.model,
    effort: raw.effort ?? null,
    summary: raw.summary ?? null,
    questions: raw.weft_questions ?? null,
    raw,
  };
}
