// The MCP servers of one thread. They start together, in the background, as soon as the thread is
// created; a turn waits for them at most until each one's startup timeout. A server that fails, times
// out or exits is reported (`mcpServer/startupStatus/updated`) and its tools are left out; a `required`
// server that is not ready fails the turn instead.
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { JsonValue, ServerRequests, type McpServerStatus, type ServerNotification } from '../../src-preload/protocol';
import type { McpServerConfig } from '../config/schema';
import type { ToolContext } from '../tools/types';
import { newItemId } from '../util/ids';
import { linkedSignal } from '../util/abort';
import { DisposeError, type Disposable } from '../util/disposable';
import { McpConnection, type McpServerState } from './connection';
import { ErrorCode } from './error-codes';
import { elicitationQuestions, elicitationResult } from './elicitation';
import { assignToolNames, type NamedTool } from './names';
import { SamplingError, type McpSampler } from './sampling';

type StartupState = Extract<McpServerState, 'starting' | 'ready' | 'failed' | 'cancelled'>;

export interface McpManagerOptions {
  threadId: string;
  servers: Record<string, McpServerConfig>;
  env: NodeJS.ProcessEnv;
  /** Where startup notifications go (the session's event stream). */
  emit: (notification: ServerNotification) => void;
  /** Where saved MCP sign-ins are (WEFT_HOME); without it, HTTP servers get no OAuth. */
  weftHome?: string;
  /** Answers sampling requests of servers with `sampling = true` (absent: they are declined). */
  sample?: McpSampler;
}

export interface McpToolEntry extends NamedTool {
  definition: Tool;
  connection: McpConnection;
}

export class McpRequiredServerError extends Error {
  override readonly name = 'McpRequiredServerError';
}

export class McpManager implements Disposable {
  private connections = new Map<string, McpConnection>();
  private startup: Promise<void> | null = null;
  private readonly reported = new Map<string, string>();
  /** Tool calls running now, newest last: an elicitation is asked in the context of its server's call. */
  private readonly activeCalls: { server: string; ctx: ToolContext }[] = [];
  private toolCache: McpToolEntry[] | null = null;
  private closed = false;
  private generation = new AbortController();

  constructor(private readonly options: McpManagerOptions) {
    this.connections = this.build(options.servers);
  }

  private connect(name: string, config: McpServerConfig): McpConnection {
    const hooks = {
      elicit: (server: string, params: ElicitRequest['params'], signal: AbortSignal) =>
        this.elicit(server, params, signal),
      sample: (server: string, params: CreateMessageRequest['params'], signal: AbortSignal) =>
        this.sample(server, params, signal),
      changed: (server: string) => this.changed(server),
    };
    return new McpConnection(name, config, this.options.env, hooks, this.options.weftHome);
  }

  private build(servers: Record<string, McpServerConfig>): Map<string, McpConnection> {
    const sorted = Object.keys(servers).sort();
    return new Map(sorted.map((name) => [name, this.connect(name, servers[name] ?? {})]));
  }

  /** Starts one server again with its config (after a sign-in); the others keep running. */
  async restartServer(name: string): Promise<void> {
    const old = this.connections.get(name);
    if (old === undefined || this.closed) return;
    await old.close();
    const fresh = this.connect(name, old.config);
    this.connections.set(name, fresh);
    this.toolCache = null;
    await fresh.start(this.generation.signal);
  }

  get serverNames(): string[] {
    return [...this.connections.keys()];
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  /** Starts every enabled server, all at once (once; `reload` starts them again). */
  start(): Promise<void> {
    if (this.startup !== null) return this.startup;
    if (this.closed) return Promise.resolve();
    const signal = this.generation.signal;
    this.startup = Promise.all([...this.connections.values()].map((c) => c.start(signal))).then(() => undefined);
    return this.startup;
  }

  /**
   * Resolves once every server is ready or has failed (each within its own startup timeout), or when
   * `signal` aborts. Throws when a `required` server is not ready.
   */
  async ready(signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      void this.start().then(done);
    });
    const missing = [...this.connections.values()].filter(
      (c) => c.config.required === true && c.state !== 'ready' && c.state !== 'disabled',
    );
    if (missing.length > 0 && !signal.aborted) {
      throw new McpRequiredServerError(
        missing
          .map(
            (c) =>
              `MCP server "${c.name}" is required but ${c.state === 'starting' ? 'has not started' : `is not running: ${c.error ?? c.state}`}`,
          )
          .join('; '),
      );
    }
  }

  /** Closes every server and starts the new set (`config/mcpServer/reload`). */
  async reload(servers: Record<string, McpServerConfig> = this.options.servers): Promise<void> {
    this.generation.abort();
    this.generation = new AbortController();
    const old = [...this.connections.values()];
    await Promise.all(old.map((c) => c.close()));
    // A server that was reported and is now gone or switched off is reported stopped, so clients forget its failure.
    for (const name of this.reported.keys()) {
      if (servers[name] === undefined || servers[name].enabled === false) {
        this.options.emit({
          method: 'mcpServer/startupStatus/updated',
          params: { threadId: this.options.threadId, name, status: 'cancelled', error: null, failureReason: null },
        });
      }
    }
    this.reported.clear();
    this.toolCache = null;
    this.connections = this.build(servers);
    this.startup = null;
    void this.start();
  }

  /** The tools offered to the model, with their model-visible names. */
  tools(): McpToolEntry[] {
    if (this.toolCache !== null) return this.toolCache;
    const pairs: { server: string; tool: string; definition: Tool; connection: McpConnection }[] = [];
    for (const connection of this.connections.values()) {
      if (connection.state !== 'ready') continue;
      for (const definition of connection.visibleTools)
        pairs.push({ server: connection.name, tool: definition.name, definition, connection });
    }
    const names = assignToolNames(pairs);
    this.toolCache = names.map((n) => {
      const pair = pairs.find((p) => p.server === n.server && p.tool === n.tool);
      if (!pair) throw new Error(`MCP tool ${n.server}/${n.tool} vanished while naming`);
      return { ...n, definition: pair.definition, connection: pair.connection };
    });
    return this.toolCache;
  }

  /** Servers that declared resources and are running. */
  resourceServers(): McpConnection[] {
    return [...this.connections.values()].filter((c) => c.state === 'ready' && c.hasResources);
  }

  /** `mcpServerStatus/list` entries, in Codex's shape with Weft's extra fields. */
  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((c) => ({
      name: c.name,
      authStatus: c.authStatus,
      runtimeStatus:
        c.state === 'ready' ? 'connected' : c.state === 'failed' && c.needsLogin ? 'authenticationRequired' : c.state,
      serverInfo:
        c.serverInfo === null
          ? null
          : { name: c.serverInfo.name, version: c.serverInfo.version, title: c.serverInfo.title ?? null },
      tools: Object.fromEntries(
        c.tools.map((t) => [
          t.name,
          {
            name: t.name,
            title: t.title ?? null,
            description: t.description ?? null,
            inputSchema: jsonOf(t.inputSchema),
            annotations: jsonOf(t.annotations ?? null),
          },
        ]),
      ),
      resources: c.resources.map(jsonOf),
      resourceTemplates: c.resourceTemplates.map(jsonOf),
      httpOrigin: c.config.url !== undefined ? safeOrigin(c.config.url) : null,
      weftTransport: c.transportKind,
      weftEnabled: c.config.enabled !== false,
      weftRequired: c.config.required === true,
      weftError: c.error,
      weftLog: [...c.log],
      weftVisibleTools: c.visibleTools.map((t) => t.name),
    }));
  }

  /** Runs `fn` with `ctx` as the context elicitations from `server` are asked in. */
  async withCall<T>(server: string, ctx: ToolContext, fn: () => Promise<T>): Promise<T> {
    const entry = { server, ctx };
    this.activeCalls.push(entry);
    try {
      return await fn();
    } finally {
      const i = this.activeCalls.indexOf(entry);
      if (i >= 0) this.activeCalls.splice(i, 1);
    }
  }

  private async elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const active = [...this.activeCalls].reverse().find((c) => c.server === server);
    if (!active || !('requestedSchema' in params)) return { action: 'decline' };
    const { ctx } = active;
    const both = linkedSignal([signal, ctx.signal]);
    let raw: unknown;
    try {
      raw = await ctx.sendRequest(
        {
          method: 'item/tool/requestUserInput',
          params: {
            threadId: ctx.threadId,
            turnId: ctx.turnId,
            itemId: newItemId(),
            questions: elicitationQuestions(server, params),
          },
        },
        both.signal,
      );
    } catch {
      return { action: 'cancel' };
    } finally {
      both.dispose();
    }
    const parsed = ServerRequests['item/tool/requestUserInput'].result.safeParse(raw);
    if (!parsed.success) return { action: 'cancel' };
    return elicitationResult(params, parsed.data);
  }

  private async sample(
    server: string,
    params: CreateMessageRequest['params'],
    signal: AbortSignal,
  ): Promise<CreateMessageResult> {
    const sampler = this.options.sample;
    if (sampler === undefined)
      throw new SamplingError(ErrorCode.InvalidRequest, 'this Weft client has no model to sample with');
    const active = [...this.activeCalls].reverse().find((c) => c.server === server);
    if (!active)
      throw new SamplingError(
        ErrorCode.InvalidRequest,
        `Weft answers sampling requests of MCP server "${server}" only during a call to one of its tools`,
      );
    const both = linkedSignal([signal, active.ctx.signal]);
    try {
      return await sampler(server, params, active.ctx, both.signal);
    } finally {
      both.dispose();
    }
  }

  private changed(server: string): void {
    this.toolCache = null;
    if (this.closed) return;
    const c = this.connections.get(server);
    if (!c || c.state === 'disabled') return;
    const state: StartupState = c.state;
    const key = `${state}\0${c.error ?? ''}`;
    if (this.reported.get(server) === key) return;
    this.reported.set(server, key);
    this.options.emit({
      method: 'mcpServer/startupStatus/updated',
      params: {
        threadId: this.options.threadId,
        name: server,
        status: state,
        error: c.error,
        failureReason: state === 'failed' && c.needsLogin ? 'reauthenticationRequired' : null,
      },
    });
  }

  /** `dispose`. */
  close(): Promise<void> {
    return this.dispose();
  }

  /** Stops every server, side by side (none depends on another); each failure is reported, with its name. */
  async dispose(): Promise<void> {
    this.closed = true;
    this.generation.abort();
    const connections = [...this.connections.values()];
    const results = await Promise.allSettled(connections.map((c) => c.dispose()));
    const failures = results.flatMap((r, i) =>
      r.status === 'rejected' ? [{ what: `the MCP server ${connections[i]?.name ?? '?'}`, error: r.reason }] : [],
    );
    if (failures.length > 0) throw new DisposeError(failures, connections.length);
  }
}

function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** A value the SDK validated, as plain JSON for the wire. */
function jsonOf(value: unknown): JsonValue {
  return JsonValue.parse(JSON.parse(JSON.stringify(value ?? null)));
}
