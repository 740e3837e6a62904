/**
 * The config.toml document: the same keys and meanings as Codex's config.toml, so a Codex
 * provider block pasted in works. Two schemas share one set of field definitions:
 * - `configLayerSchema` checks one layer (a file, or the `-c` flags) on its own: every key is
 *   optional and unknown keys are reported (the loader turns them into warnings);
 * - `weftConfigSchema` parses the merged layers and applies defaults, giving `WeftConfig`.
 */
import { z } from 'zod';
import { NotificationsTable } from '../../src-preload/protocol';
import { environmentSchema, environmentsSchema } from './environments';
import { formatKeyPath } from './toml-keys';

export const APPROVAL_POLICIES = ['untrusted', 'on-failure', 'on-request', 'never'] as const;
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export const REASONING_SUMMARIES = ['auto', 'concise', 'detailed', 'none'] as const;
export const WEB_SEARCH_MODES = ['disabled', 'cached', 'live'] as const;
export const WIRE_APIS = ['responses', 'chat'] as const;
export const TRUST_LEVELS = ['trusted', 'untrusted'] as const;
export const ENV_INHERIT = ['all', 'core', 'none'] as const;
export const AGENT_COMMAND_PRIORITIES = ['background', 'normal'] as const;

/** Values used when no layer sets the key. */
export const DEFAULTS = {
  model: 'gpt-5.1-codex',
  model_provider: 'openai',
  approval_policy: 'on-request',
  sandbox_mode: 'workspace-write',
  model_reasoning_summary: 'auto',
  project_doc_max_bytes: 32768,
  web_search: 'disabled',
} as const;

/**
 * How long the `browser` tools wait, in seconds, when `[browser]` does not say: a page's load, an action
 * (click, typing, `evaluate`, reading the page), and a page's answer to a trivial script before it is taken as
 * hung in a script and closed.
 */
export const BROWSER_TIMEOUT_DEFAULTS = { load_timeout_sec: 15, action_timeout_sec: 10, busy_timeout_sec: 5 } as const;

/** Per-provider defaults (Codex's numbers); retries are capped at 100 as in Codex. */
export const PROVIDER_DEFAULTS = {
  wire_api: 'responses',
  request_max_retries: 4,
  stream_max_retries: 5,
  stream_idle_timeout_ms: 300_000,
} as const;

export const MAX_RETRIES = 100;

const stringMap = z.record(z.string(), z.string());
const stringList = z.array(z.string());
/** Tables Weft accepts for Codex compatibility but does not interpret (yet). */
const looseTable = z.record(z.string(), z.unknown());
const positiveInt = z.int().positive();
const retries = z.int().min(0).max(MAX_RETRIES);
/** A browser wait in seconds: more than nothing, at most ten minutes. */
const browserSeconds = z.number().positive().max(600);

/** A price in US dollars per million tokens. */
const pricePerMillion = z.number().min(0).max(1_000_000);

/**
 * `cached_input` omitted = the same as `input` (no discount for cached tokens); `cache_write_input` omitted =
 * the same as `input` (no surcharge for tokens a provider writes to its prompt cache).
 */
const modelPriceSchema = z.strictObject({
  input: pricePerMillion,
  cached_input: pricePerMillion.optional(),
  cache_write_input: pricePerMillion.optional(),
  output: pricePerMillion,
});

const providerFields = {
  /** Display name; the id when omitted. */
  name: z.string().optional(),
  /** Required for custom providers (checked when the provider is resolved). */
  base_url: z.string().optional(),
  /** Environment variable holding the API key; when omitted the provider needs no key. */
  env_key: z.string().optional(),
  /** Shown when env_key is not set, instead of the generic advice. */
  env_key_instructions: z.string().optional(),
  wire_api: z.enum(WIRE_APIS).optional(),
  query_params: stringMap.optional(),
  http_headers: stringMap.optional(),
  /** Header name → environment variable; headers whose variable is unset are left out. */
  env_http_headers: stringMap.optional(),
  request_max_retries: retries.optional(),
  stream_max_retries: retries.optional(),
  stream_idle_timeout_ms: positiveInt.optional(),
  /** A literal bearer token; used instead of env_key. Redacted by `redactConfig`. */
  experimental_bearer_token: z.string().optional(),
  /** The provider authenticates like OpenAI: env_key defaults to OPENAI_API_KEY. */
  requires_openai_auth: z.boolean().optional(),
};

const layerProviderSchema = z.strictObject(providerFields);

const providerSchema = layerProviderSchema.extend({
  wire_api: z.enum(WIRE_APIS).default(PROVIDER_DEFAULTS.wire_api),
  request_max_retries: retries.default(PROVIDER_DEFAULTS.request_max_retries),
  stream_max_retries: retries.default(PROVIDER_DEFAULTS.stream_max_retries),
  stream_idle_timeout_ms: positiveInt.default(PROVIDER_DEFAULTS.stream_idle_timeout_ms),
});

export const MCP_APPROVAL_MODES = ['never', 'on-request', 'always'] as const;

/** Codex's MCP defaults: how long a server may take to start, and one tool call to answer. */
export const MCP_DEFAULTS = { startup_timeout_sec: 10, tool_timeout_sec: 60 } as const;

/**
 * An MCP server (Codex's keys): stdio `{command, args, env, env_vars, cwd}` or streamable HTTP `{url,
 * bearer_token_env_var, http_headers, env_http_headers}` (an SSE server is tried when streamable HTTP
 * is refused). Unknown keys are warnings, bad values errors with their line and column.
 */
const mcpServerSchema = z.strictObject({
  command: z.string().min(1).optional(),
  args: stringList.optional(),
  /** Set in the server's environment (on top of the filtered inherited one). */
  env: stringMap.optional(),
  /** Names of variables passed through from Weft's environment. */
  env_vars: stringList.optional(),
  cwd: z.string().optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  /** Variable holding a bearer token sent as `Authorization: Bearer …`. */
  bearer_token_env_var: z.string().optional(),
  http_headers: stringMap.optional(),
  /** Header name → environment variable; headers whose variable is unset are left out. */
  env_http_headers: stringMap.optional(),
  /** false: configured but not started. Default true. */
  enabled: z.boolean().optional(),
  /** true: a thread cannot start its turn without this server. Default false. */
  required: z.boolean().optional(),
  startup_timeout_sec: z.number().positive().optional(),
  /** Codex's other spelling of the startup timeout; `startup_timeout_sec` wins. */
  startup_timeout_ms: positiveInt.optional(),
  tool_timeout_sec: z.number().positive().optional(),
  /** Only these tools are offered to the model (absent = all). */
  enabled_tools: stringList.optional(),
  /** These tools are never offered (applied after enabled_tools). */
  disabled_tools: stringList.optional(),
  /**
   * Weft: when to ask before a call. `on-request` (default): ask unless the tool says it is read-only
   * or the approval policy is `never`; `always`: ask for every call; `never`: never ask.
   */
  approval: z.enum(MCP_APPROVAL_MODES).optional(),
  /** Per tool: `approval` for that tool only. */
  tools: z.record(z.string(), z.strictObject({ approval: z.enum(MCP_APPROVAL_MODES).optional() })).optional(),
  /** Answer the server's sampling requests with the thread's model, after asking the user (default: declined with an error naming this key). */
  sampling: z.boolean().optional(),
  /** Accepted for Codex compatibility (OAuth is not supported). */
  scopes: stringList.optional(),
  oauth_resource: z.string().optional(),
  supports_parallel_tool_calls: z.boolean().optional(),
});

/** Each server is either stdio (`command`) or HTTP (`url`); checked after layers merge. */
const mcpServersSchema = z.record(z.string(), mcpServerSchema).superRefine((servers, ctx) => {
  for (const [name, server] of Object.entries(servers)) {
    const label = formatKeyPath(['mcp_servers', name]);
    if (server.command === undefined && server.url === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `\`${label}\` needs \`command\` (a stdio server) or \`url\` (an HTTP server)`,
      });
    } else if (server.command !== undefined && server.url !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `\`${label}\` has both \`command\` and \`url\`; keep one (stdio or HTTP)`,
      });
    }
  }
});

/** How many sub-agents a thread may have open at once when `[agents] max_threads` does not say. */
export const DEFAULT_AGENT_MAX_THREADS = 6;

/**
 * How deep below the thread a person started sub-agents may be when `[agents] max_depth` does not say:
 * Codex 0.169's default, where a sub-agent spawns none of its own.
 */
export const DEFAULT_AGENT_MAX_DEPTH = 1;

/** A role a sub-agent may be spawned as: `[agents.<name>]` (spawn_agent's `agent_type`). */
const agentRoleSchema = z.strictObject({
  /** What the role is for: the model reads it when it chooses one. */
  description: z.string().min(1, 'must say what the role is for'),
  /** Added to the sub-agent's developer instructions. */
  developer_instructions: z.string().optional(),
  model: z.string().optional(),
  model_reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
});

/** The keys a `[profiles.<name>]` table may set. */
const profileSchema = z.strictObject({
  model: z.string().optional(),
  model_provider: z.string().optional(),
  approval_policy: z.enum(APPROVAL_POLICIES).optional(),
  sandbox_mode: z.enum(SANDBOX_MODES).optional(),
  model_reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
  model_reasoning_summary: z.enum(REASONING_SUMMARIES).optional(),
  web_search: z.enum(WEB_SEARCH_MODES).optional(),
});

const documentFields = {
  model: z.string().optional(),
  /** Id of a built-in provider (openai, ollama, lmstudio) or of a `[model_providers.<id>]` table. */
  model_provider: z.string().optional(),
  /** Base URL of the built-in `openai` provider (wins over OPENAI_BASE_URL), as Codex's key of that name. */
  openai_base_url: z.string().optional(),
  /** Custom providers by id. Entries named like a built-in are dropped with a warning. */
  model_providers: z.record(z.string(), layerProviderSchema).optional(),
  approval_policy: z.enum(APPROVAL_POLICIES).optional(),
  sandbox_mode: z.enum(SANDBOX_MODES).optional(),
  /** Only read when sandbox_mode is workspace-write. */
  sandbox_workspace_write: z
    .strictObject({
      writable_roots: stringList.optional(),
      network_access: z.boolean().optional(),
      exclude_tmpdir_env_var: z.boolean().optional(),
      exclude_slash_tmp: z.boolean().optional(),
    })
    .optional(),
  /** Omitted: the model's own default. */
  model_reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
  model_reasoning_summary: z.enum(REASONING_SUMMARIES).optional(),
  /** Omitted: taken from the model catalog. */
  model_context_window: positiveInt.optional(),
  /** Omitted: derived from the context window. */
  model_auto_compact_token_limit: positiveInt.optional(),
  tool_output_token_limit: positiveInt.optional(),
  /** 0 turns AGENTS.md loading off. */
  project_doc_max_bytes: z.int().min(0).optional(),
  project_doc_fallback_filenames: stringList.optional(),
  project_root_markers: stringList.optional(),
  shell_environment_policy: z
    .strictObject({
      inherit: z.enum(ENV_INHERIT).optional(),
      exclude: stringList.optional(),
      include_only: stringList.optional(),
      set: stringMap.optional(),
      ignore_default_excludes: z.boolean().optional(),
    })
    .optional(),
  web_search: z.enum(WEB_SEARCH_MODES).optional(),
  /**
   * Weft's own: `false` offers the model no `request_user_input` tool, so a thread never asks anyone a
   * question (nobody is there to answer: an automation's runs set it for their thread); omitted = offered.
   * It is where a thread's `TurnSettings.questions` starts: a turn/start's `weftQuestions` changes it, and a
   * resumed thread keeps its last turn's.
   */
  questions: z.boolean().optional(),
  /**
   * Weft's own: where the agent's commands run on Linux. `background` (omitted) runs each below Weft itself
   * (its session's scheduling group and the command 10 nice steps down: safety/sandbox/background.ts), so a
   * contended core goes to the host and its windows first; `normal` runs them at Weft's own priority.
   */
  agent_command_priority: z.enum(AGENT_COMMAND_PRIORITIES).optional(),
  /**
   * Weft's own: the browser the `browser` tools drive; `path` omitted = a system Chromium or Chrome is looked
   * for; `enabled = false` offers no browser tools (and says nothing of them to the model). The `*_sec` keys
   * are how long it waits before it gives up (BROWSER_TIMEOUT_DEFAULTS when omitted).
   */
  browser: z
    .strictObject({
      path: z.string().min(1, 'must be the path of a Chromium or Chrome executable').optional(),
      enabled: z.boolean().optional(),
      load_timeout_sec: browserSeconds.optional(),
      action_timeout_sec: browserSeconds.optional(),
      busy_timeout_sec: browserSeconds.optional(),
    })
    .optional(),
  /** argv of a program run with Codex's `agent-turn-complete` JSON appended when an agent turn completes. */
  notify: stringList.optional(),
  /** Weft's own: US dollars per million tokens, by model name (`[model_prices."gpt-5.1-codex"]`). */
  model_prices: z.record(z.string().min(1, 'a model name cannot be empty'), modelPriceSchema).optional(),
  /** Weft's own: when the app tells the person a thread needs them (see NOTIFICATION_DEFAULTS). */
  notifications: NotificationsTable.optional(),
  instructions: z.string().optional(),
  developer_instructions: z.string().optional(),
  model_instructions_file: z.string().optional(),
  mcp_servers: z.record(z.string(), mcpServerSchema).optional(),
  /** Weft's own: remote machines and containers reached through ssh or a command (`environments.ts`). */
  environments: z.record(z.string(), environmentSchema).optional(),
  /** Name of the `[profiles.<name>]` table to apply (profiles are validated, applied in a later layer). */
  profile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).optional(),
  /** Keyed by absolute project path. */
  projects: z
    .record(
      z.string(),
      z.strictObject({
        trust_level: z.enum(TRUST_LEVELS).optional(),
        /** The project config files the user accepted: path from the project root → `sha256:<hex>` of the file's bytes. */
        trusted_files: z
          .record(z.string(), z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" and 64 hex digits'))
          .optional(),
      }),
    )
    .optional(),
  history: looseTable.optional(),
  /** Weft's own: per-turn checkpoints of the workspace's files (undo a turn with its files). */
  checkpoints: z
    .strictObject({
      /** false: no checkpoints are taken (reverts then change history only). */
      enabled: z.boolean().optional(),
      /** Checkpoints of the last `keep_turns` turns of each thread are kept... */
      keep_turns: positiveInt.optional(),
      /** ...and those of the last `keep_days` days. */
      keep_days: z.number().min(0).optional(),
      /** Larger files are noted ("not checkpointed: too large"), not stored. */
      max_file_bytes: positiveInt.optional(),
      /** New content stored for one turn stops at this many bytes. */
      max_turn_bytes: positiveInt.optional(),
      /** Where forks with files get their worktree or copy; default `WEFT_HOME/worktrees`. */
      worktrees_dir: z.string().optional(),
    })
    .optional(),
  /** Weft's own: worktree threads (`thread/start {weftWorktree: true}`) and their clean-up. */
  worktree: z
    .strictObject({
      /**
       * A shell command run in each new worktree of the project (in the thread's sandbox, before its first
       * turn), such as `npm ci`. Applies from a trusted project's `.weft/config.toml` (or the user's).
       */
      setup: z.string().min(1, 'must be a command, such as "npm ci"').optional(),
      /** `weft worktrees prune` removes what it may only once the worktree's threads were idle this long. */
      prune_after_days: z.number().min(0).optional(),
    })
    .optional(),
  /**
   * Sub-agents (`multi_agent_v1` tools): `max_threads` open at once per thread (default 6), `max_depth`
   * the deepest a sub-agent may be below the thread a person started (default 1: sub-agents spawn none; 0:
   * no thread is offered the tools, as in Codex), and roles as `[agents.<name>]` tables.
   */
  agents: z
    .object({ max_threads: positiveInt.optional(), max_depth: z.int().min(0).optional() })
    .catchall(agentRoleSchema)
    .optional(),
  /**
   * Lifecycle hooks (`[[hooks.PreToolUse]]` …) and the user's decisions about them (`[hooks.state."<key>"]`):
   * read and checked per file by config/hooks/discover.ts, not merged (every layer's hooks run).
   */
  hooks: looseTable.optional(),
  /**
   * Weft's own: `read_config = true` (in the user's config.toml only) also reads the hooks of Codex's home
   * (`$CODEX_HOME`, default `~/.codex`: its hooks.json and config.toml's `[hooks]`), trusted like any other.
   */
  codex: z.strictObject({ read_config: z.boolean().optional() }).optional(),
  tui: looseTable.optional(),
  features: looseTable.optional(),
};

/** One layer on its own: everything optional, unknown keys reported as `unrecognized_keys`. */
export const configLayerSchema = z.strictObject(documentFields);

/** The merged layers with defaults applied. */
export const weftConfigSchema = configLayerSchema.extend({
  model: z.string().default(DEFAULTS.model),
  model_provider: z.string().default(DEFAULTS.model_provider),
  model_providers: z.record(z.string(), providerSchema).default({}),
  approval_policy: z.enum(APPROVAL_POLICIES).default(DEFAULTS.approval_policy),
  sandbox_mode: z.enum(SANDBOX_MODES).default(DEFAULTS.sandbox_mode),
  model_reasoning_summary: z.enum(REASONING_SUMMARIES).default(DEFAULTS.model_reasoning_summary),
  project_doc_max_bytes: z.int().min(0).default(DEFAULTS.project_doc_max_bytes),
  web_search: z.enum(WEB_SEARCH_MODES).default(DEFAULTS.web_search),
  mcp_servers: mcpServersSchema.default({}),
  environments: environmentsSchema.optional(),
});

export type WeftConfig = z.output<typeof weftConfigSchema>;
export type ModelProviderConfig = z.output<typeof providerSchema>;
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type WireApi = (typeof WIRE_APIS)[number];

/**
 * The keys a table at `path` of a layer accepts, for "did you mean" suggestions; empty when the
 * path does not lead to a fixed-key table.
 */
export function knownKeysAt(path: readonly (string | number)[]): string[] {
  let schema: z.ZodType = configLayerSchema;
  for (const segment of path) {
    const next = childSchema(schema, segment);
    if (next === null) return [];
    schema = next;
  }
  const object = unwrap(schema);
  return object instanceof z.ZodObject ? Object.keys(object.shape) : [];
}

function childSchema(schema: z.ZodType, segment: string | number): z.ZodType | null {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject && typeof segment === 'string') {
    const field: unknown = inner.shape[segment];
    return field instanceof z.ZodType ? field : null;
  }
  if (inner instanceof z.ZodRecord) return inner.valueType instanceof z.ZodType ? inner.valueType : null;
  if (inner instanceof z.ZodArray) return inner.element instanceof z.ZodType ? inner.element : null;
  return null;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault) {
    const inner: unknown = current.unwrap();
    if (!(inner instanceof z.ZodType)) break;
    current = inner;
  }
  return current;
}
