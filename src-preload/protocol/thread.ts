// Thread and Turn: a saved conversation and one exchange within it.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { HookRunSummary } from './hooks';
import { ThreadItem, WeftDiffCut } from './items';

export const ThreadActiveFlag = lazySchema(() => z.enum(['waitingOnApproval', 'waitingOnUserInput']));
export type ThreadActiveFlag = z.infer<typeof ThreadActiveFlag>;

/**
 * Weft: what a running turn is doing now, for lists that show it ("Running `npm test`", "Editing 3 files").
 * `thinking`: waiting on the model (no tool runs); `command`: a command runs (`command` as the item shows
 * it); `fileChange`: a patch is being applied or reviewed (`files` files, `path` the first of them);
 * `mcpToolCall`: an MCP tool is called; `webSearch`: the model searches the web; `message`: the model writes
 * its answer; `compaction`: the history is being compacted. With several tools at once, the one started last.
 */
export const WeftThreadStep = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('thinking') }),
    z.object({ type: z.literal('command'), command: z.string() }),
    z.object({ type: z.literal('fileChange'), files: z.number().int().nonnegative(), path: z.string().nullable() }),
    z.object({ type: z.literal('mcpToolCall'), server: z.string(), tool: z.string() }),
    z.object({ type: z.literal('webSearch'), query: z.string() }),
    z.object({ type: z.literal('message') }),
    z.object({ type: z.literal('compaction') }),
    // A `browser` tool call: `action` is its name (open, click…), `target` what it acts on, in words.
    z.object({ type: z.literal('browser'), action: z.string(), target: z.string() }),
  ]),
);
export type WeftThreadStep = z.infer<typeof WeftThreadStep>;

/**
 * `notLoaded`: only on disk; `idle`: loaded, no turn running; `systemError`: loaded, no turn running, and its
 * last turn failed (as Codex reports it; the next turn clears it); `active`: a turn is running, waiting on
 * the person when `activeFlags` says so. Weft adds `weftStep` to `active` (absent from peers that do not
 * know it).
 */
export const ThreadStatus = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('notLoaded') }),
    z.object({ type: z.literal('idle') }),
    z.object({ type: z.literal('systemError') }),
    z.object({
      type: z.literal('active'),
      activeFlags: z.array(ThreadActiveFlag),
      weftStep: WeftThreadStep.optional(),
    }),
  ]),
);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

/**
 * Where a thread's unread part begins (Codex's `ThreadUnreadPosition`): `turn`, the earliest turn that
 * ended since someone last read the thread; `threadStart`, marked unread by someone (also when it has no turn).
 */
export const ThreadUnreadPosition = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('threadStart') }),
    z.object({ type: z.literal('turn'), turnId: z.string() }),
  ]),
);
export type ThreadUnreadPosition = z.infer<typeof ThreadUnreadPosition>;

/**
 * Whether a thread has been read since its last turn ended (Codex's `ThreadReadState`), kept with the
 * thread, so every client and every restart sees the same. `firstUnread` null: read. `revision` is opaque:
 * it changes with every turn that ends and every mark, and `thread/readState/update` is refused when the
 * caller's revision is not the current one (it would mark what it has not seen).
 */
export const ThreadReadState = lazySchema(() =>
  z.object({
    firstUnread: ThreadUnreadPosition.nullable().default(null),
    revision: z.string(),
  }),
);
export type ThreadReadState = z.infer<typeof ThreadReadState>;

/** Git state of the cwd when the thread was created; each field null when unknown. */
export const GitInfo = lazySchema(() =>
  z.object({
    sha: z.string().nullable(),
    branch: z.string().nullable(),
    originUrl: z.string().nullable(),
  }),
);
export type GitInfo = z.infer<typeof GitInfo>;

/**
 * How a sub-agent thread came to be (Codex's `SubAgentSource`): `thread_spawn` for one a thread's model
 * spawned (`spawn_agent`): its parent, how deep below the root thread it is (1 for a child), and its
 * nickname and role (null when it has none); `review`, `compact`, `memory_consolidation` or `{other}` for
 * Codex's internal ones (read from Codex's threads, never made by Weft).
 */
export const ThreadSpawnSource = lazySchema(() =>
  z.object({
    parent_thread_id: z.string(),
    depth: z.number().int(),
    agent_path: z.string().nullable().optional(),
    agent_nickname: z.string().nullable().optional(),
    agent_role: z.string().nullable().optional(),
  }),
);
export type ThreadSpawnSource = z.infer<typeof ThreadSpawnSource>;

export const SubAgentSource = lazySchema(() =>
  z.union([
    z.enum(['review', 'compact', 'memory_consolidation']),
    z.strictObject({ thread_spawn: ThreadSpawnSource }),
    z.strictObject({ other: z.string() }),
  ]),
);
export type SubAgentSource = z.infer<typeof SubAgentSource>;

/**
 * Where a thread was started: "cli", "vscode", "exec", "appServer", "unknown", … (a string), a client's own
 * name (`{custom}`), or a sub-agent (`{subAgent}`, see `SubAgentSource`).
 */
export const SessionSource = lazySchema(() =>
  z.union([z.string(), z.strictObject({ custom: z.string() }), z.strictObject({ subAgent: SubAgentSource })]),
);
export type SessionSource = z.infer<typeof SessionSource>;

export const TurnStatus = lazySchema(() => z.enum(['inProgress', 'completed', 'interrupted', 'failed']));
export type TurnStatus = z.infer<typeof TurnStatus>;

/**
 * Why a turn failed (also the payload of the `error` notification). `codexErrorInfo` is a machine code
 * such as "ContextWindowExceeded"; `additionalDetails` is extra text for people. Both null/absent when
 * there is nothing to add.
 */
export const TurnError = lazySchema(() =>
  z.object({
    message: z.string(),
    codexErrorInfo: z.string().nullish(),
    additionalDetails: z.string().nullish(),
  }),
);
export type TurnError = z.infer<typeof TurnError>;

/**
 * One exchange. `items` is filled on resume / fork / read-with-turns and in `turn/completed`; elsewhere it
 * may be empty (clients accumulate `item/*` notifications). `error` is set only when status is `failed`.
 * Times are unix seconds, null while unknown; `durationMs` null until the turn ends. Peers that predate
 * these fields may omit them (read as null).
 */
/**
 * Weft: one hook run of a turn and where it ran: after the item `afterItemId` (the turn's item that started
 * last before the run; null: before the turn's first item).
 */
export const WeftHookRunPlace = lazySchema(() => z.object({ run: HookRunSummary, afterItemId: z.string().nullable() }));
export type WeftHookRunPlace = z.infer<typeof WeftHookRunPlace>;

export const Turn = lazySchema(() =>
  z.object({
    id: z.string(),
    items: z.array(ThreadItem),
    status: TurnStatus,
    error: TurnError.nullable(),
    startedAt: z.number().nullable().default(null),
    completedAt: z.number().nullable().default(null),
    durationMs: z.number().nonnegative().nullable().default(null),
    /**
     * Weft: the turn's aggregated unified diff (what `turn/diff/updated` last said), filled for turns read
     * from disk (`thread/resume`, `thread/read`, `thread/fork`) so "View changes" survives a reload; absent
     * when the turn changed no files or is live (live changes come in `turn/diff/updated`).
     */
    weftDiff: z.string().nullable().optional(),
    /** Weft: present when `weftDiff` was cut to WEFT_DIFF_MAX_CHARS, with the whole diff's totals. */
    weftDiffCut: WeftDiffCut.optional(),
    /**
     * Weft: the turn's hook runs as they completed, for turns read from disk (live runs come as `hook/started`
     * and `hook/completed`); absent when no hook ran.
     */
    weftHookRuns: z.array(WeftHookRunPlace).optional(),
  }),
);
export type Turn = z.infer<typeof Turn>;

/**
 * Weft: the git worktree a thread works in (a worktree thread of `thread/start {weftWorktree}`, or a fork
 * with files in a git project). `path`: the worktree's folder; `branch`: its branch; `baseRef`: what the
 * branch was made from (a branch name, or a commit when the project's `HEAD` was detached); `projectRoot`:
 * the project folder the thread was started for (its threads are listed with the project's).
 */
export const WeftWorktree = lazySchema(() =>
  z.object({
    path: z.string(),
    branch: z.string(),
    baseRef: z.string(),
    projectRoot: z.string(),
  }),
);
export type WeftWorktree = z.infer<typeof WeftWorktree>;

/**
 * A saved conversation. `id` is a UUID v7; `createdAt`/`updatedAt` are unix seconds; `path` is the rollout
 * file (null for ephemeral threads); `preview` is usually the first user message ("" if none yet);
 * `forkedFromId` is the thread it was forked from; `name` is the user-set title. `turns` is filled only by
 * resume / fork / rollback / read with `includeTurns`, and is `[]` everywhere else. `sessionId` names the
 * tree of threads that share one session (a thread's own id; a sub-agent's is its root thread's);
 * `projectId` is always null (Weft keeps no project registry).
 */
export const Thread = lazySchema(() =>
  z.object({
    id: z.string(),
    sessionId: z.string(),
    projectId: z.string().nullable(),
    forkedFromId: z.string().nullable(),
    preview: z.string(),
    ephemeral: z.boolean(),
    modelProvider: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    status: ThreadStatus,
    path: z.string().nullable(),
    cwd: z.string(),
    cliVersion: z.string(),
    source: SessionSource,
    gitInfo: GitInfo.nullable(),
    name: z.string().nullable(),
    turns: z.array(Turn),
    /**
     * A sub-agent's parent thread, nickname and role (its `source` is `{subAgent: {thread_spawn}}`); absent on
     * every other thread (Codex sends null there).
     */
    parentThreadId: z.string().nullable().optional(),
    agentNickname: z.string().nullable().optional(),
    agentRole: z.string().nullable().optional(),
    /** Weft: the thread is pinned (`weft/thread/pin`; the UI lists it first); absent when it is not. */
    weftPinned: z.boolean().optional(),
    /** Weft: present when the thread works in a git worktree of its own (see `WeftWorktree`). */
    weftWorktree: WeftWorktree.optional(),
    /**
     * Weft: the group of threads started together from one prompt ("try N ways", `thread/start
     * {weftGroupId}`), compared side by side; absent when the thread is in none.
     */
    weftGroupId: z.string().optional(),
    /**
     * Weft: the thread's read state (as `thread/read` answers it in `readState`); absent when nothing was ever
     * marked: read, revision "0".
     */
    weftReadState: ThreadReadState.optional(),
    /** Weft: how the thread's latest turn ended (`inProgress` while it runs); absent when it has no turn. */
    weftLastTurnStatus: TurnStatus.optional(),
    /**
     * Weft: the configured environment the thread lives on, set by a host that reaches environments for the
     * threads it passes on from one; absent for a thread of the host's own machine. Its `cwd` and `path` are
     * the remote's.
     */
    weftEnvironment: z.string().optional(),
  }),
);
export type Thread = z.infer<typeof Thread>;
