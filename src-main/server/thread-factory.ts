import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { SandboxPolicy, type GitInfo, type JsonValue, type Thread, type ThreadOverrides } from '../../src-preload/protocol';
import { loadConfig, type LoadedConfig } from '../config';
import type { KeyStore } from '../config/key-store';
import { resolveProvider, type ResolvedProvider } from '../config/providers';
import type { WeftConfig } from '../config/schema';
import { createSession, sandboxPolicyFor } from '../core/create-session';
import type { Session } from '../core/session';
import type { SessionOptions, SessionRecorder, TurnRecord } from '../core/types';
import { keyedModelClient } from '../core/keyed-model-client';
import type { ModelClient } from '../model/types';
import type { CheckpointService } from '../checkpoints/service';
import type { RuleStore } from '../safety/approvals/rules';
import type { LoadedThread } from '../store/loader';
import type { HostRequestSender } from '../tools/types';
import { VERSION } from '../version';
import { invalidParams } from './rpc-error';

export interface HostEnvironment {
  weftHome: string;
  env: NodeJS.ProcessEnv;
  /** The project a new thread opens on when the client names none. */
  defaultCwd: string;
  rules: RuleStore;
  log: (line: string) => void;
  /** Tests may give every session the same model client. */
  modelClient?: ModelClient;
  /** Keys saved from Settings, by provider id: the desktop keychain, else WEFT_HOME/auth.json. */
  keyStore: KeyStore;
  /** File checkpoints (one store per Weft home) and where forks with files go; absent = none. */
  checkpoints?: { service: CheckpointService; worktreesDir: string };
}

/** The effective config for a thread: config.toml + the client's overrides. */
export async function threadConfig(host: HostEnvironment, overrides: ThreadOverrides, cwd: string): Promise<{ loaded: LoadedConfig; provider: ResolvedProvider }> {
  const flags = Object.entries(overrides.config ?? {}).map(([key, value]) => `${key}=${tomlLiteral(value)}`);
  if (overrides.model) flags.push(`model=${tomlLiteral(overrides.model)}`);
  if (overrides.modelProvider) flags.push(`model_provider=${tomlLiteral(overrides.modelProvider)}`);
  if (overrides.approvalPolicy) flags.push(`approval_policy=${tomlLiteral(overrides.approvalPolicy)}`);
  if (overrides.sandbox) flags.push(`sandbox_mode=${tomlLiteral(overrides.sandbox)}`);
  if (overrides.baseInstructions) flags.push(`instructions=${tomlLiteral(overrides.baseInstructions)}`);
  if (overrides.developerInstructions) flags.push(`developer_instructions=${tomlLiteral(overrides.developerInstructions)}`);
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig({ weftHome: host.weftHome, cwd, overrides: flags, env: host.env });
  } catch (error) {
    throw invalidParams(error instanceof Error ? error.message : String(error));
  }
  for (const w of loaded.warnings) host.log(`weft app-server: config warning: ${w}`);
  let provider: ResolvedProvider;
  try {
    provider = resolveProvider(loaded.config, host.env);
  } catch (error) {
    throw invalidParams(error instanceof Error ? error.message : String(error));
  }
  return { loaded, provider };
}

export function resolveCwd(requested: string | null | undefined, fallback: string): string {
  return resolve(requested ?? fallback);
}

/** A session for a new or continued thread. */
export function buildSession(
  host: HostEnvironment,
  input: { threadId: string; cwd: string; config: WeftConfig; provider: ResolvedProvider; sendRequest: HostRequestSender; recorder?: SessionRecorder; state?: LoadedThread; overrides: ThreadOverrides },
): Session {
  const last = input.state?.lastTurnContext ?? null;
  const savedSandbox = last?.sandboxPolicy ? SandboxPolicy.safeParse(last.sandboxPolicy) : null;
  const explicit = (key: string): boolean => input.config !== undefined && key in (input.overrides.config ?? {});
  const initial: SessionOptions['initial'] = input.state
    ? {
        history: input.state.history,
        turns: input.state.turns.map((turn): TurnRecord => ({ turn: { ...turn, items: [] }, items: turn.items })),
        tokenUsage: input.state.tokenUsage,
        contextRef: last && isApproval(last.approvalPolicy) && last.sandboxPolicy ? { cwd: last.cwd, approvalPolicy: last.approvalPolicy, sandbox: JSON.stringify(last.sandboxPolicy) } : null,
      }
    : undefined;
  return createSession({
    config: input.config,
    provider: input.provider,
    cwd: input.cwd,
    threadId: input.threadId,
    sendRequest: input.sendRequest,
    env: host.env,
    rules: host.rules,
    weftHome: host.weftHome,
    recorder: input.recorder,
    checkpoints: input.config.checkpoints?.enabled === false ? undefined : host.checkpoints?.service,
    initial,
    // The key is looked up per request (config token > environment > saved key), so one saved in
    // Settings applies to the next turn.
    modelClient: host.modelClient ?? keyedModelClient(input.provider, host.keyStore),
    overrides: {
      // A resumed thread keeps its own settings unless the client overrides them now.
      model: input.overrides.model ?? (last && !explicit('model') ? last.model : undefined),
      approvalPolicy: input.overrides.approvalPolicy ?? (last && isApproval(last.approvalPolicy) ? last.approvalPolicy : undefined),
      sandboxPolicy: input.overrides.sandbox ? sandboxPolicyFor(input.overrides.sandbox, input.config) : savedSandbox?.success ? savedSandbox.data : undefined,
    },
  });
}

function isApproval(v: string): v is 'untrusted' | 'on-failure' | 'on-request' | 'never' {
  return v === 'untrusted' || v === 'on-failure' || v === 'on-request' || v === 'never';
}

/** A new thread's protocol object, before anything is written. */
export function newThreadObject(input: { id: string; cwd: string; provider: string; ephemeral: boolean; path: string | null; git: GitInfo | null }): Thread {
  const now = Math.floor(Date.now() / 1000);
  return {
    id: input.id,
    sessionId: input.id,
    projectId: null,
    forkedFromId: null,
    preview: '',
    ephemeral: input.ephemeral,
    modelProvider: input.provider,
    createdAt: now,
    updatedAt: now,
    status: { type: 'idle' },
    path: input.path,
    cwd: input.cwd,
    cliVersion: VERSION,
    source: 'appServer',
    gitInfo: input.git,
    name: null,
    turns: [],
  };
}

/** The git branch, commit and origin of `cwd`, or null outside a repository. */
export function gitInfoOf(cwd: string): GitInfo | null {
  const git = (args: string[]): string | null => {
    try {
      return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim() || null;
    } catch {
      return null;
    }
  };
  const sha = git(['rev-parse', 'HEAD']);
  if (sha === null && git(['rev-parse', '--git-dir']) === null) return null;
  return { sha, branch: git(['rev-parse', '--abbrev-ref', 'HEAD']), originUrl: git(['config', '--get', 'remote.origin.url']) };
}

/** A JSON value as a TOML literal for a `-c key=value` override. */
export function tomlLiteral(value: JsonValue): string {
  if (value === null) return '""';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(tomlLiteral).join(', ')}]`;
  return `{ ${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)} = ${tomlLiteral(v)}`).join(', ')} }`;
}
