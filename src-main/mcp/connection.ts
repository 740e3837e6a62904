// One configured MCP server: its transport (a child process on stdio, or streamable HTTP falling back
// to SSE), the SDK client over it, its tool list, and what it printed while starting.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  ElicitRequest,
  ElicitResult,
  Implementation,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_DEFAULTS, type McpServerConfig } from '../config/schema';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import type * as Sdk from './sdk';

/** The SDK's client side, loaded with the first server that starts (see sdk.ts). */
type McpSdk = typeof Sdk;

/** Where a server is: Codex's startup states, plus `disabled` (configured with `enabled = false`). */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'cancelled' | 'disabled';

/** Lines of the server's stderr (and Weft's own notes) kept from its last start. */
const LOG_LINES = 200;

export interface McpConnectionHooks {
  /** A form the server wants filled in (elicitation); answered `decline` when nobody can ask. */
  elicit(server: string, request: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  /** The server's tool list changed, or its state did. */
  changed(server: string): void;
}

export interface McpCallOptions {
  signal: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export class McpConnection {
  state: McpServerState;
  error: string | null = null;
  tools: Tool[] = [];
  serverInfo: Implementation | null = null;
  capabilities: Record<string, unknown> | null = null;
  readonly log: string[] = [];
  private client: Client | null = null;
  private transport: Transport | null = null;
  private closing = false;
  /** How many times close() ran: a close while the SDK was loading cancels the start. */
  private closes = 0;
  /** The last line the server wrote to stderr: usually why it exited. */
  private lastStderr: string | null = null;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly env: NodeJS.ProcessEnv,
    private readonly hooks: McpConnectionHooks,
  ) {
    this.state = config.enabled === false ? 'disabled' : 'starting';
  }

  get transportKind(): 'stdio' | 'http' {
    return this.config.command !== undefined ? 'stdio' : 'http';
  }

  get startupTimeoutMs(): number {
    const sec = this.config.startup_timeout_sec ?? (this.config.startup_timeout_ms !== undefined ? this.config.startup_timeout_ms / 1000 : MCP_DEFAULTS.startup_timeout_sec);
    return sec * 1000;
  }

  get toolTimeoutMs(): number {
    return (this.config.tool_timeout_sec ?? MCP_DEFAULTS.tool_timeout_sec) * 1000;
  }

  /** The tools the config lets the model see. */
  get visibleTools(): Tool[] {
    const enabled = this.config.enabled_tools;
    const disabled = new Set(this.config.disabled_tools ?? []);
    return this.tools.filter((t) => (enabled === undefined || enabled.includes(t.name)) && !disabled.has(t.name));
  }

  private note(line: string): void {
    this.log.push(line);
    if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
  }

  /**
   * Connects, initializes and lists the tools, within the startup timeout. Never throws: the outcome
   * is `state` (`ready` or `failed`) and `error`.
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.state === 'disabled') return;
    this.state = 'starting';
    this.error = null;
    this.lastStderr = null;
    this.log.length = 0;
    this.hooks.changed(this.name);
    const timeoutMs = this.startupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not start within ${timeoutMs / 1000} s (startup_timeout_sec)`)), timeoutMs);
    });
    const onAbort = (): void => void this.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([this.connect(), timedOut]);
      await Promise.race([this.refreshTools(), timedOut]);
      this.state = 'ready';
      this.note(`ready: ${this.tools.length} tool(s)`);
    } catch (error) {
      this.error = signal?.aborted ? 'cancelled' : this.describeFailure(error);
      this.state = signal?.aborted ? 'cancelled' : 'failed';
      this.note(`failed: ${this.error}`);
      await this.close();
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    this.hooks.changed(this.name);
  }

  /** A start failure for people: a stdio server that closed the pipe exited, and its stderr says why. */
  private describeFailure(error: unknown): string {
    const message = errorMessage(error);
    if (this.transportKind === 'stdio' && /connection closed/i.test(message)) {
      return this.lastStderr === null ? 'the server exited while starting' : `the server exited while starting: ${this.lastStderr}`;
    }
    return message;
  }

  private async connect(): Promise<void> {
    const closesBefore = this.closes;
    const sdk = await import('./sdk');
    if (this.closes !== closesBefore) throw new Error('closed while starting');
    if (this.config.command !== undefined) {
      const transport = new sdk.StdioClientTransport({
        command: this.config.command,
        args: this.config.args ?? [],
        env: this.childEnv(sdk),
        cwd: this.config.cwd,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line.trim() === '') continue;
          this.note(line);
          this.lastStderr = line.trim();
        }
      });
      this.note(`starting: ${[this.config.command, ...(this.config.args ?? [])].join(' ')}`);
      await this.attach(sdk, transport);
      return;
    }
    const url = new URL(this.config.url ?? '');
    const headers = this.httpHeaders();
    this.note(`connecting: ${url.origin}${url.pathname} (streamable HTTP)`);
    try {
      await this.attach(sdk, new sdk.StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    } catch (error) {
      if (this.closing) throw error;
      this.note(`streamable HTTP failed (${errorMessage(error)}); trying SSE`);
      await this.attach(sdk, new sdk.SSEClientTransport(url, { requestInit: { headers }, eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...headers, ...Object.fromEntries(new Headers(init?.headers).entries()) } }) } }));
    }
  }

  private async attach(sdk: McpSdk, transport: Transport): Promise<void> {
    // No sampling capability is declared, so a server's sampling request is refused by the SDK.
    const client = new sdk.Client({ name: 'weft', version: VERSION }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => this.hooks.elicit(this.name, request.params, extra.signal));
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      void this.refreshTools().then(
        () => this.hooks.changed(this.name),
        (error: unknown) => this.note(`tools/list failed: ${errorMessage(error)}`),
      );
    });
    client.onclose = () => {
      if (this.client !== client || this.closing) return;
      this.client = null;
      if (this.state === 'ready') {
        this.state = 'failed';
        this.error = this.transportKind === 'stdio' && this.lastStderr !== null ? `the server exited: ${this.lastStderr}` : 'the server exited';
        this.note(this.error);
        this.hooks.changed(this.name);
      }
    };
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport);
    } catch (error) {
      this.client = null;
      await transport.close().catch(() => undefined);
      throw error;
    }
    this.serverInfo = client.getServerVersion() ?? null;
    this.capabilities = (client.getServerCapabilities() as Record<string, unknown> | undefined) ?? null;
  }

  private childEnv(sdk: McpSdk): Record<string, string> {
    const env: Record<string, string> = { ...sdk.getDefaultEnvironment() };
    for (const name of this.config.env_vars ?? []) {
      const value = this.env[name];
      if (value !== undefined) env[name] = value;
    }
    return { ...env, ...this.config.env };
  }

  private httpHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.config.http_headers };
    for (const [header, variable] of Object.entries(this.config.env_http_headers ?? {})) {
      const value = this.env[variable];
      if (value !== undefined && value !== '') headers[header] = value;
    }
    const tokenVar = this.config.bearer_token_env_var;
    if (tokenVar !== undefined) {
      const token = this.env[tokenVar];
      if (token === undefined || token === '') throw new Error(`bearer_token_env_var names ${tokenVar}, which is not set`);
      headers['Authorization'] = `Bearer ${token}`;
    }
    return headers;
  }

  private requireClient(): Client {
    if (this.client === null || this.state !== 'ready') {
      throw new Error(`MCP server "${this.name}" is not running${this.error === null ? '' : ` (${this.error})`}`);
    }
    return this.client;
  }

  async refreshTools(): Promise<void> {
    const client = this.client;
    if (client === null) throw new Error('not connected');
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.tools = tools;
  }

  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const client = this.requireClient();
    const onProgress = options.onProgress;
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal,
      timeout: this.toolTimeoutMs,
      ...(onProgress ? { onprogress: onProgress, resetTimeoutOnProgress: false } : {}),
    });
    // The SDK's result type also allows the legacy `toolResult` form; Weft reads `content`.
    return 'content' in result ? (result as CallToolResult) : { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
  }

  listResources(cursor: string | undefined, signal: AbortSignal): Promise<ListResourcesResult> {
    return this.requireClient().listResources(cursor === undefined ? {} : { cursor }, { signal, timeout: this.toolTimeoutMs });
  }

  listResourceTemplates(cursor: string | undefined, signal: AbortSignal): Promise<ListResourceTemplatesResult> {
    return this.requireClient().listResourceTemplates(cursor === undefined ? {} : { cursor }, { signal, timeout: this.toolTimeoutMs });
  }

  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.requireClient().readResource({ uri }, { signal, timeout: this.toolTimeoutMs });
  }

  /** Whether the server declared resources. */
  get hasResources(): boolean {
    return this.capabilities !== null && 'resources' in this.capabilities;
  }

  async close(): Promise<void> {
    this.closes += 1;
    this.closing = true;
    const client = this.client;
    const transport = this.transport;
    this.client = null;
    this.transport = null;
    try {
      if (client !== null) await client.close();
      else if (transport !== null) await transport.close();
    } catch {
      // Closing a server that already died is not an error.
    } finally {
      this.closing = false;
    }
  }
}
