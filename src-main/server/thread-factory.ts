import { resolve } from 'node:path';
import type { GitInfo, Thread, ThreadOverrides, WeftWorktree } from '../../src-preload/protocol';
import { loadConfig, overrideValue, type LoadedConfig, type ParsedOverride } from '../config';
import type { KeyStore } from '../config/key-store';
import { resolveProvider, type ResolvedProvider } from '../config/providers';
import type { WeftConfig } from '../config/schema';
import { buildSession } from '../core/session-builder';
import type { SessionHooksInput } from '../core/create-session';
import type { Session } from '../core/session';
import type { SubAgentHost } from '../core/agents/types';
import type { SessionRecorder, TurnOverrides } from '../core/types';
import type { ModelClient } from '../model/types';
import type { CheckpointService } from '../checkpoints/service';
import type { RuleStore } from '../safety/approvals/rules';
import { gitConfigEntries, git as runGit } from '../safety/git/run';
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

/**
 * The effective config for a thread: config.toml + the client's overrides (values, as given).
 * `worktree`: the thread works in that worktree of its project (its project's trust applies there).
 */
export async function threadConfig(
  host: HostEnvironment,
  overrides: ThreadOverrides,
  cwd: string,
  worktree: WeftWorktree | null = null,
): Promise<{ loaded: LoadedConfig; provider: ResolvedProvider }> {
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig({
      weftHome: host.weftHome,
      cwd,
      overrides: threadOverrideValues(overrides),
      env: host.env,
      worktreeOf: worktree === null ? null : { path: worktree.path, projectRoot: worktree.projectRoot },
    });
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

/**
 * Most parts a config key path from a client may have. Config keys are a few tables deep
 * (`mcp_servers.docs.env.TOKEN`); a dotted key of thousands of parts would become a table nested as deep,
 * which the config layers are merged and checked through recursively.
 */
export const MAX_KEY_PATH_PARTS = 32;

/** Refuses a key path deeper than {@link MAX_KEY_PATH_PARTS}; `field` names it for the client. */
export function checkKeyPathParts(path: readonly string[], field: string): void {
  if (path.length > MAX_KEY_PATH_PARTS)
    throw invalidParams(`${field}: a key path of ${path.length} parts; config keys have at most ${MAX_KEY_PATH_PARTS}`);
}

/** A thread's overrides as config layer values: its `config` map first, then the named settings. */
function threadOverrideValues(overrides: ThreadOverrides): ParsedOverride[] {
  const values = Object.entries(overrides.config ?? {}).map(([key, value]) => {
    const parsed = overrideValue(key, value);
    checkKeyPathParts(parsed.path, 'params.config');
    return parsed;
  });
  const named: [string, string | null | undefined][] = [
    ['model', overrides.model],
    ['model_provider', overrides.modelProvider],
    ['approval_policy', overrides.approvalPolicy],
    ['sandbox_mode', overrides.sandbox],
    ['instructions', overrides.baseInstructions],
    ['developer_instructions', overrides.developerInstructions],
  ];
  for (const [key, value] of named) if (value) values.push(overrideValue(key, value));
  return values;
}

export function resolveCwd(requested: string | null | undefined, fallback: string): string {
  return resolve(requested ?? fallback);
}

/** A session for a new or continued thread of the app server. */
export function threadSession(
  host: HostEnvironment,
  input: {
    threadId: string;
    cwd: string;
    config: WeftConfig;
    provider: ResolvedProvider;
    sendRequest: HostRequestSender;
    recorder?: SessionRecorder;
    state?: LoadedThread;
    overrides: ThreadOverrides;
    /** The trusted project config folders, kept read-only (`ProjectTrust.trustedConfigDirs`). */
    protectedPaths: readonly string[];
    /** The thread's own git worktree (`Thread.weftWorktree`): its commands may commit on its branch. */
    worktree?: WeftWorktree | null;
    /** Where the thread's sub-agents are made; absent = it spawns none. */
    subAgents?: SubAgentHost;
    /** Where the thread is in its session tree (its sub-agents' depth follows); absent = a root. */
    agentTree?: { sessionId: string; depth: number };
    /** Settings that win over the others (a sub-agent's: its parent's cwd, sandbox and approvals). */
    exact?: TurnOverrides;
    /** A sub-agent's role instructions, added to the config's. */
    extraDeveloperInstructions?: string | null;
    /** The hooks found for the thread's folder; absent = none. */
    hooks?: SessionHooksInput;
  },
): Session {
  return buildSession({
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
    saved: input.state,
    protectedPaths: input.protectedPaths,
    ownWorktree: input.worktree ? { path: input.worktree.path, branch: input.worktree.branch } : null,
    // The key is looked up per request (config token > environment > saved key), so one saved in
    // Settings applies to the next turn.
    modelClient: host.modelClient,
    keyStore: host.keyStore,
    log: host.log,
    ...(input.hooks === undefined ? {} : { hooks: input.hooks }),
    // A resumed thread keeps its own settings unless the client overrides them now.
    asked: {
      model: input.overrides.model ?? undefined,
      approvalPolicy: input.overrides.approvalPolicy ?? undefined,
      sandbox: input.overrides.sandbox ?? undefined,
    },
    keepSaved: {
      modelSetInConfig: 'model' in (input.overrides.config ?? {}),
      questionsSetInConfig: 'questions' in (input.overrides.config ?? {}),
    },
    subAgents: input.subAgents,
    agentTree: input.agentTree,
    exact: input.exact,
    extraDeveloperInstructions: input.extraDeveloperInstructions,
  });
}

/** A new thread's protocol object, before anything is written. */
export function newThreadObject(input: {
  id: string;
  cwd: string;
  provider: string;
  ephemeral: boolean;
  path: string | null;
  git: GitInfo | null;
  worktree?: WeftWorktree | null;
}): Thread {
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
    ...(input.worktree ? { weftWorktree: input.worktree } : {}),
  };
}

/** How long one git command may take before the thread is described without it. */
const GIT_TIMEOUT_MS = 2000;

/**
 * The git branch, commit and origin of `cwd`, or null outside a repository, in two git processes whatever
 * the answer (every thread/start pays them): the configuration listing that every guarded git call reads
 * first, which holds the origin (the last value wins, as with `git config --get`), and one `rev-parse` of
 * the git directory, the commit and the branch. A repository with no commit yet prints its git directory
 * and fails on HEAD: no commit, no branch. A command that fails or outlasts the timeout counts as unknown.
 */
export async function gitInfoOf(cwd: string): Promise<GitInfo | null> {
  const [entries, revParse] = await Promise.all([
    gitConfigEntries(cwd).catch(() => []),
    runGit(cwd, ['rev-parse', '--git-dir', 'HEAD', '--abbrev-ref', 'HEAD'], {
      timeoutMs: GIT_TIMEOUT_MS,
      okExitCodes: [128],
    }).catch(() => null),
  ]);
  if (revParse === null) return null;
  const [gitDir = '', sha = '', branch = ''] = revParse.stdout.split('\n');
  if (gitDir === '') return null;
  const complete = revParse.exitCode === 0;
  const origin = entries.findLast((entry) => entry.key === 'remote.origin.url')?.value ?? '';
  return { sha: complete ? sha || null : null, branch: complete ? branch || null : null, originUrl: origin || null };
}
