import type { AskForApproval, ResponseItem, SandboxMode, SandboxPolicy } from '../../src-preload/protocol';
import type { ResolvedProvider } from '../config/providers';
import type { WeftConfig } from '../config/schema';
import { BASE_INSTRUCTIONS } from '../context/base-instructions';
import { autoCompactLimit } from '../context/compaction';
import { modelInfo } from '../model/catalog';
import { ChatCompletionsClient } from '../model/chat-client';
import { priceTable } from '../model/prices';
import { ResponsesClient } from '../model/responses-client';
import type { ModelClient } from '../model/types';
import { applyPatchTool } from '../tools/apply-patch-tool';
import { commandEnv, commandEnvPolicy, type CommandEnvPolicy } from '../safety/command-env';
import type { ConfiguredHook } from '../config/hooks/discover';
import { HookEngine } from './hooks/engine';
import { mcpHookCaller } from './hooks/run-mcp-tool';
import { ExecSessionManager } from '../tools/exec';
import { execCommandTool, writeStdinTool } from '../tools/exec-tools';
import { updatePlanTool } from '../tools/plan-tool';
import { ToolRegistry } from '../tools/registry';
import { requestUserInputTool } from '../tools/user-input-tool';
import { viewImageTool } from '../tools/view-image-tool';
import type { HostRequestSender } from '../tools/types';
import { uuidv7 } from '../util/ids';
import { mcpSampler } from '../mcp/sampling';
import { McpManager } from '../mcp/manager';
import { mcpToolSource } from '../mcp/tools';
import { browserTimeouts } from '../browser/launch-settings';
import { locateBrowser } from '../browser/locate';
import { browserToolSource } from '../browser/tools';
import { tmpdir } from 'node:os';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { notifyHook } from './notify-hook';
import { Session } from './session';
import { agentToolSource } from './agents/agent-tools';
import { agentMaxDepth, agentMaxThreads, agentRoles } from './agents/config';
import { AgentControl } from './agents/control';
import type { AgentTreePosition, ParentLink, SubAgentHost } from './agents/types';
import type { RuleStore } from '../safety/approvals/rules';
import type { OwnWorktree } from '../safety/sandbox/worktree-git';
import type { FileCheckpoints } from '../tools/file-checkpoints';
import { SafetyServices } from '../tools/safety-services';
import type { SessionOptions, SessionRecorder, TurnOverrides } from './types';

export interface CreateSessionInput {
  config: WeftConfig;
  provider: ResolvedProvider;
  cwd: string;
  sendRequest: HostRequestSender;
  threadId?: string;
  overrides?: TurnOverrides & { approvalPolicy?: AskForApproval };
  env?: NodeJS.ProcessEnv;
  /** Tests and benchmarks may inject a model client; by default one is built for the provider. */
  modelClient?: ModelClient;
  /** Home of global AGENTS.md and skills; absent = no project context (tests). */
  weftHome?: string;
  /** Remembered approval rules (loaded once per process, shared by every thread). */
  rules: RuleStore;
  recorder?: SessionRecorder;
  initial?: SessionOptions['initial'];
  /** Checkpoints of the files tool calls change; absent = none. */
  checkpoints?: FileCheckpoints;
  /** More paths commands and patches may not write (the trusted project config folders); absent = none. */
  protectedPaths?: readonly string[];
  /** Where problems of the thread's side programs (the `notify` program) are told; default stderr. */
  log?: (line: string) => void;
  /** The thread's own git worktree, where its commands may commit on its branch; absent = none. */
  ownWorktree?: OwnWorktree | null;
  /**
   * Where the thread's sub-agents are made: with it the model gets the sub-agent tools (`multi_agent_v1`)
   * while the thread is less deep than `agents.max_depth`; absent = no sub-agents.
   */
  subAgents?: SubAgentHost;
  /** Where the thread is in its session tree; absent = a root thread (its own root, depth 0). */
  agentTree?: AgentTreePosition;
  /** Developer instructions added after the config's (a sub-agent's role); absent = none. */
  extraDeveloperInstructions?: string | null;
  /** The lifecycle hooks found for the thread's folder (config/hooks/discover.ts); absent = none. */
  hooks?: SessionHooksInput;
}

export interface SessionHooksInput {
  hooks: readonly ConfiguredHook[];
  /** `weft exec --dangerously-bypass-hook-trust`: run enabled hooks nobody trusted. */
  bypassTrust: boolean;
  /** The thread's rollout (`transcript_path`); null for a thread that is not saved. */
  transcriptPath: string | null;
}

export function sandboxPolicyFor(mode: SandboxMode, config: WeftConfig): SandboxPolicy {
  switch (mode) {
    case 'read-only':
      return { type: 'readOnly' };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
    case 'workspace-write': {
      const ww = config.sandbox_workspace_write;
      return {
        type: 'workspaceWrite',
        writableRoots: ww?.writable_roots ?? [],
        networkAccess: ww?.network_access ?? false,
        excludeTmpdirEnvVar: ww?.exclude_tmpdir_env_var ?? false,
        excludeSlashTmp: ww?.exclude_slash_tmp ?? false,
      };
    }
  }
}

export function modelClientFor(provider: ResolvedProvider): ModelClient {
  if (provider.wireApi === 'chat') {
    return new ChatCompletionsClient({
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      headers: provider.headers,
      queryParams: provider.queryParams,
      streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
    });
  }
  return new ResponsesClient({
    baseUrl: provider.baseUrl,
    apiKey: provider.apiKey,
    headers: provider.headers,
    queryParams: provider.queryParams,
    streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
  });
}

function joinInstructions(...parts: (string | null | undefined)[]): string | null {
  const present = parts.filter((p): p is string => p !== undefined && p !== null && p !== '');
  return present.length === 0 ? null : present.join('\n\n');
}

/** The thread as its sub-agents see it. */
function parentLink(threadId: string, tree: AgentTreePosition, session: () => Session | null): ParentLink {
  const live = (): Session => {
    const s = session();
    if (s === null) throw new Error(`thread ${threadId} has no session yet`);
    return s;
  };
  return {
    threadId,
    sessionId: tree.sessionId,
    depth: tree.depth,
    settings: () => live().currentSettings,
    history: () => live().history,
    contextRef: () => live().contextRef,
    addModelInput: (item) => live().addModelInput(item),
    addChildUsage: (usage) => live().addChildUsage(usage),
  };
}

/** The thread's hook engine, or null when no hook is configured for its folder. */
function hookEngineFor(
  input: CreateSessionInput,
  threadId: string,
  envPolicy: CommandEnvPolicy,
  mcp: McpManager,
  session: () => Session | null,
): HookEngine | null {
  const found = input.hooks;
  if (found === undefined || found.hooks.length === 0) return null;
  return new HookEngine({
    threadId,
    hooks: found.hooks,
    bypassTrust: found.bypassTrust,
    env: () => commandEnv(input.env ?? process.env, envPolicy),
    context: () => {
      const settings = session()?.currentSettings;
      return {
        cwd: settings?.cwd ?? input.cwd,
        model: settings?.model ?? input.config.model,
        permissionMode:
          (settings?.approvalPolicy ?? input.config.approval_policy) === 'never' ? 'bypassPermissions' : 'default',
        transcriptPath: found.transcriptPath,
      };
    },
    emit: (n) => session()?.emit(n),
    callMcpTool: mcpHookCaller(mcp),
  });
}

/**
 * Where a thread's screenshots go: beside its rollout (`<rollout>.files/`, so they live and move with the
 * thread's files), or a folder of the session's own for a thread that is not saved (`unsaved`).
 */
function screenshotDirFor(input: CreateSessionInput, threadId: string): { dir: string; unsaved: boolean } {
  const recorder: unknown = input.recorder;
  const rollout =
    input.hooks?.transcriptPath ??
    (typeof recorder === 'object' && recorder !== null && 'path' in recorder && typeof recorder.path === 'string'
      ? recorder.path
      : null);
  if (rollout !== null) return { dir: `${rollout.replace(/\.jsonl$/, '')}.files`, unsaved: false };
  // An unsaved thread's: in WEFT_HOME, which clients may read (fs/readFile) and sandboxed commands may not
  // write (a folder in /tmp could be swapped for a link by the model's commands); removed with the session.
  const dir =
    input.weftHome === undefined
      ? join(tmpdir(), `weft-screenshots-${threadId}`)
      : join(input.weftHome, 'cache', `weft-screenshots-${threadId}`);
  return { dir, unsaved: true };
}

/** Wires config into a ready session: model client, tools, exec sessions that die with it. */
export function createSession(input: CreateSessionInput): Session {
  const { config, provider } = input;
  const model = input.overrides?.model ?? config.model;
  const info = modelInfo(model);
  const envPolicy = commandEnvPolicy(config.shell_environment_policy);
  // The agent's commands run below the host that serves the person (safety/sandbox/background.ts), unless
  // the config says `agent_command_priority = "normal"`.
  const exec = new ExecSessionManager({ envPolicy, background: config.agent_command_priority !== 'normal' });
  const tools = new ToolRegistry()
    .register(execCommandTool(exec))
    .register(writeStdinTool(exec))
    .register(updatePlanTool())
    .register(viewImageTool())
    // Offered only in a turn whose `questions` setting is on (regular.ts): see TurnSettings.questions.
    .register(requestUserInputTool());
  tools.register(applyPatchTool(provider.wireApi === 'responses' ? info.applyPatchToolType : 'function'));
  if (config.web_search !== 'disabled' && provider.wireApi === 'responses') {
    tools.addHostedTool({ type: 'web_search', external_web_access: config.web_search === 'live' });
  }
  const threadId = input.threadId ?? uuidv7();
  // MCP servers start now, in the background; the first turn waits for them only as long as their
  // startup timeouts allow. Their notifications go out once the session exists.
  let session: Session | null = null;
  const modelClient = input.modelClient ?? modelClientFor(provider);
  const mcp = new McpManager({
    threadId,
    servers: config.mcp_servers,
    env: input.env ?? process.env,
    emit: (n) => session?.emit(n),
    ...(input.weftHome === undefined ? {} : { weftHome: input.weftHome }),
    sample: mcpSampler({ client: modelClient, model: () => session?.currentSettings.model ?? model }),
  });
  tools.addSource(mcpToolSource(mcp, provider.wireApi));
  const shots = screenshotDirFor(input, threadId);
  const browser =
    config.browser?.enabled === false
      ? null
      : browserToolSource({
          location: locateBrowser(config.browser?.path),
          timeouts: browserTimeouts(config.browser),
          wireApi: provider.wireApi,
          screenshotDir: shots.dir,
          tell: (text) => {
            const live = session;
            // Said once per thread: a resumed thread's history may already hold it.
            const said = (item: ResponseItem): boolean =>
              item.type === 'message' && JSON.stringify(item).includes(JSON.stringify(text));
            if (live === null || live.history.some(said)) return;
            live.addModelInput({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
          },
        });
  if (browser !== null) tools.addSource(browser.source);
  const tree = input.agentTree ?? { sessionId: threadId, depth: 0 };
  const maxDepth = agentMaxDepth(config);
  const hooks = hookEngineFor(input, threadId, envPolicy, mcp, () => session);
  const agents =
    input.subAgents === undefined || tree.depth >= maxDepth
      ? null
      : new AgentControl({
          parent: parentLink(threadId, tree, () => session),
          host: input.subAgents,
          maxThreads: agentMaxThreads(config),
          maxDepth,
          roles: agentRoles(config),
          onLifecycle: (event, child) => hooks?.subAgent(event, child),
        });
  if (agents) tools.addSource(agentToolSource(agents, provider.wireApi));
  session = new Session({
    threadId,
    settings: {
      cwd: input.cwd,
      model,
      effort: input.overrides?.effort ?? config.model_reasoning_effort ?? null,
      summary: input.overrides?.summary ?? config.model_reasoning_summary,
      approvalPolicy: input.overrides?.approvalPolicy ?? config.approval_policy,
      sandboxPolicy: input.overrides?.sandboxPolicy ?? sandboxPolicyFor(config.sandbox_mode, config),
      // `questions = false` in the config (an automation's thread/start sets it): nobody is there to answer.
      questions: input.overrides?.questions ?? config.questions !== false,
    },
    baseInstructions: config.instructions ?? BASE_INSTRUCTIONS,
    developerInstructions: joinInstructions(config.developer_instructions, input.extraDeveloperInstructions),
    modelClient,
    tools,
    sendRequest: input.sendRequest,
    retry: { requestMaxRetries: provider.requestMaxRetries, streamMaxRetries: provider.streamMaxRetries },
    supportsReasoning: info.supportsReasoning,
    prices: priceTable(config),
    modelContextWindow: config.model_context_window ?? info.contextWindow,
    autoCompactTokenLimit: autoCompactLimit(
      config.model_auto_compact_token_limit,
      config.model_context_window ?? info.contextWindow,
    ),
    env: input.env,
    envPolicy,
    safety: new SafetyServices(input.rules, process.platform, input.protectedPaths ?? [], input.ownWorktree ?? null),
    context: input.weftHome
      ? {
          weftHome: input.weftHome,
          projectDocMaxBytes: config.project_doc_max_bytes,
          projectDocFallbackFilenames: config.project_doc_fallback_filenames ?? [],
          projectRootMarkers: config.project_root_markers ?? ['.git'],
        }
      : undefined,
    recorder: input.recorder,
    checkpoints: input.checkpoints,
    background: exec,
    initial: input.initial,
    onInterrupt: async () => {
      // Interrupting a thread interrupts its sub-agents too.
      await Promise.all([exec.closeAll('the turn was interrupted'), agents?.interruptAll()]);
    },
    stopBackgroundCommands: (reason) => exec.closeAll(reason),
    mcp,
    ...(hooks === null ? {} : { hooks }),
    ...(browser === null ? {} : { browserLive: browser.live }),
  });
  // Released in reverse: the sub-agents, the MCP servers, the commands, then (added by the session) the rollout.
  session.resources.add(exec, 'the commands the thread left running');
  session.resources.add(mcp, "the thread's MCP servers");
  if (browser !== null)
    session.resources.add(
      {
        dispose: async () => {
          await browser.dispose();
          // An unsaved thread's screenshots go with it, as its history does.
          if (shots.unsaved) await rm(shots.dir, { recursive: true, force: true });
        },
      },
      "the thread's browser",
    );
  if (config.notify !== undefined && config.notify.length > 0) {
    const started = session;
    const hook = notifyHook({
      argv: config.notify,
      threadId,
      cwd: () => started.currentSettings.cwd,
      client: () => started.turnClient,
      env: input.env ?? process.env,
      log: input.log ?? ((line) => process.stderr.write(`${line}\n`)),
    });
    session.subscribe(hook.listener);
    session.resources.add({ dispose: hook.settled }, 'the notify programs being started');
  }
  if (agents) session.resources.add(agents, "the thread's sub-agents");
  if (hooks) session.resources.add({ dispose: () => hooks.end() }, "the thread's hooks");
  setImmediate(() => void mcp.start());
  return session;
}
