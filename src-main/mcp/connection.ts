// One configured MCP server: its transport (a child process on stdio, or streamable HTTP falling back
// to SSE), the SDK client over it, its tool list, and what it printed while starting.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Implementation,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_DEFAULTS, type McpServerConfig } from '../config/schema';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import type * as ClientSdkModule from './client-sdk';
import { ErrorCode } from './error-codes';
import { SamplingError, samplingNotEnabled } from './sampling';
import type { Disposable } from '../util/disposable';

/** The SDK's client side, loaded on the first connect (see client-sdk.ts). */
type ClientSdk = typeof ClientSdkModule;

/** Where a server is: Codex's startup states, plus `disabled` (configured with `enabled = false`). */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'cancelled' | 'disabled';

/** Lines of the server's stderr (and Weft's own notes) kept from its last start. */
const LOG_LINES = 200;
/** Pages of resources listed for `mcpServerStatus/list`; the model's tools page further themselves. */
const MAX_RESOURCE_PAGES = 20;

export interface McpConnectionHooks {
  /** A form the server wants filled in (elicitation); answered `decline` when nobody can ask. */
  elicit(server: string, request: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  /** A sampling request of a server configured with `sampling = true`. */
  sample(server: string, request: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>;
  /** The server's tool list changed, or its state did. */
  changed(server: string): void;
}

export interface McpCallOptions {
  signal: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export class McpConnection implements Disposable {
  state: McpServerState;
  error: string | null = null;
  tools: Tool[] = [];
  /** What the server listed as resources and resource templates when it started (or last said they changed). */
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  serverInfo: Implementation | null = null;
  capabilities: Record<string, unknown> | null = null;
  readonly log: string[] = [];
  /** How Weft authenticates to the server (Codex's `authStatus`). */
  authStatus: 'unsupported' | 'notLoggedIn' | 'bearerToken' | 'oAuth';
  /** The last start failed because the server wants credentials (it answered 401, or wants a sign-in). */
  needsLogin = false;
  /** The server's endpoint answered 401 during this start. */
  private unauthorized = false;
  private client: Client | null = null;
  private transport: Transport | null = null;
  private closing = false;
  /** The last line the server wrote to stderr: usually why it exited. */
  private lastStderr: string | null = null;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly env: NodeJS.ProcessEnv,
    private readonly hooks: McpConnectionHooks,
    /** Where saved OAuth sign-ins are (`weft mcp login`); without it, HTTP servers get no OAuth. */
    private readonly weftHome?: string,
  ) {
    this.state = config.enabled === false ? 'disabled' : 'starting';
    this.authStatus = config.bearer_token_env_var !== undefined ? 'bearerToken' : 'unsupported';
  }

  get transportKind(): 'stdio' | 'http' {
    return this.config.command !== undefined ? 'stdio' : 'http';
  }

  get startupTimeoutMs(): number {
    const sec =
      this.config.startup_timeout_sec ??
      (this.config.startup_timeout_ms !== undefined
        ? this.config.startup_timeout_ms / 1000
        : MCP_DEFAULTS.startup_timeout_sec);
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
    this.needsLogin = false;
    this.unauthorized = false;
    this.lastStderr = null;
    this.log.length = 0;
    this.resources = [];
    this.resourceTemplates = [];
    this.hooks.changed(this.name);
    const timeoutMs = this.startupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not start within ${timeoutMs / 1000} s (startup_timeout_sec)`)),
        timeoutMs,
      );
    });
    const onAbort = (): void => void this.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([this.connect(), timedOut]);
      await Promise.race([this.refreshTools(), timedOut]);
      await Promise.race([this.refreshResources(), timedOut]);
      this.state = 'ready';
      this.note(
        `ready: ${this.tools.length} tool(s)${this.hasResources ? `, ${this.resources.length} resource(s), ${this.resourceTemplates.length} resource template(s)` : ''}`,
      );
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
      return this.lastStderr === null
        ? 'the server exited while starting'
        : `the server exited while starting: ${this.lastStderr}`;
    }
    return message;
  }

  private async connect(): Promise<void> {
    const sdk = await import('./client-sdk');
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
    // A saved sign-in (weft mcp login) is offered unless a bearer token is configured; the provider
    // refreshes tokens, and asks for a new sign-in by failing the start.
    const authProvider =
      this.weftHome !== undefined && this.config.bearer_token_env_var === undefined
        ? new sdk.WeftOAuthProvider(new sdk.McpOAuthStore(this.weftHome), this.name, this.config.url ?? '')
        : undefined;
    if (authProvider !== undefined && (await authProvider.tokens()) !== undefined) this.authStatus = 'oAuth';
    const auth = authProvider === undefined ? {} : { authProvider };
    // Every request goes through here, so a 401 of the server's own endpoint is known whatever the
    // transport or the SDK's auth flow makes of it afterwards.
    const endpoint = `${url.origin}${url.pathname}`;
    const watched: FetchLike = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401) {
        const target = new URL(input instanceof URL ? input.href : input);
        if (`${target.origin}${target.pathname}` === endpoint) this.unauthorized = true;
      }
      return response;
    };
    this.note(
      `connecting: ${url.origin}${url.pathname} (streamable HTTP${this.authStatus === 'oAuth' ? ', signed in' : ''})`,
    );
    try {
      try {
        await this.attach(
          sdk,
          new sdk.StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: watched, ...auth }),
        );
      } catch (error) {
        // A 401 is about credentials: SSE would be refused the same way.
        if (this.closing || sdk.isLoginError(error) || this.unauthorized) throw error;
        this.note(`streamable HTTP failed (${errorMessage(error)}); trying SSE`);
        await this.attach(
          sdk,
          new sdk.SSEClientTransport(url, {
            requestInit: { headers },
            fetch: watched,
            ...auth,
            eventSourceInit: {
              fetch: (input, init) =>
                watched(input, {
                  ...init,
                  headers: { ...headers, ...Object.fromEntries(new Headers(init?.headers).entries()) },
                }),
            },
          }),
        );
      }
    } catch (error) {
      if (this.closing) throw error;
      if (authProvider !== undefined && (sdk.isLoginError(error) || this.unauthorized)) {
        this.authStatus = 'notLoggedIn';
        this.needsLogin = true;
        throw new sdk.McpLoginRequiredError(this.name);
      }
      if (this.unauthorized) {
        this.needsLogin = true;
        const tokenVar = this.config.bearer_token_env_var;
        throw new Error(
          tokenVar !== undefined
            ? `MCP server "${this.name}" refused the bearer token in ${tokenVar} (401 Unauthorized)`
            : `MCP server "${this.name}" answered 401 Unauthorized: it wants credentials (bearer_token_env_var, http_headers or env_http_headers)`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  private async attach(sdk: ClientSdk, transport: Transport): Promise<void> {
    // Sampling is declared only for servers configured with `sampling = true`; any other server that
    // asks anyway is told which setting would allow it.
    const sampling = this.config.sampling === true;
    const client = new sdk.Client(
      { name: 'weft', version: VERSION },
      { capabilities: { elicitation: { form: {} }, ...(sampling ? { sampling: {} } : {}) } },
    );
    client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) =>
      this.hooks.elicit(this.name, request.params, extra.signal),
    );
    if (sampling)
      client.setRequestHandler(sdk.CreateMessageRequestSchema, (request, extra) =>
        this.hooks.sample(this.name, request.params, extra.signal),
      );
    client.fallbackRequestHandler = (request) => {
      if (request.method === 'sampling/createMessage') return Promise.reject(samplingNotEnabled(this.name));
      return Promise.reject(new SamplingError(ErrorCode.MethodNotFound, 'Method not found'));
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      void this.refreshTools().then(
        () => this.hooks.changed(this.name),
        (error: unknown) => this.note(`tools/list failed: ${errorMessage(error)}`),
      );
    });
    client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, () => {
      void this.refreshResources().then(() => this.hooks.changed(this.name));
    });
    client.onclose = () => {
      if (this.client !== client || this.closing) return;
      this.client = null;
      if (this.state === 'ready') {
        this.state = 'failed';
        this.error =
          this.transportKind === 'stdio' && this.lastStderr !== null
            ? `the server exited: ${this.lastStderr}`
            : 'the server exited';
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

  private childEnv(sdk: ClientSdk): Record<string, string> {
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
      if (token === undefined || token === '')
        throw new Error(`bearer_token_env_var names ${tokenVar}, which is not set`);
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

  /**
   * Lists the server's resources and templates (every page, up to a bound). A server that declared
   * resources but fails to list them keeps empty lists and a note in its log; it still starts.
   */
  async refreshResources(): Promise<void> {
    const client = this.client;
    if (client === null || !this.hasResources) {
      this.resources = [];
      this.resourceTemplates = [];
      return;
    }
    const pages = async <T>(
      kind: string,
      list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
    ): Promise<T[]> => {
      const out: T[] = [];
      let cursor: string | undefined;
      try {
        for (let page = 0; page < MAX_RESOURCE_PAGES; page++) {
          const { items, nextCursor } = await list(cursor);
          out.push(...items);
          cursor = nextCursor;
          if (cursor === undefined) break;
        }
      } catch (error) {
        this.note(`${kind} failed: ${errorMessage(error)}`);
      }
      return out;
    };
    const timeout = this.toolTimeoutMs;
    this.resources = await pages('resources/list', async (cursor) => {
      const r = await client.listResources(cursor === undefined ? {} : { cursor }, { timeout });
      return { items: r.resources, nextCursor: r.nextCursor };
    });
    this.resourceTemplates = await pages('resources/templates/list', async (cursor) => {
      const r = await client.listResourceTemplates(cursor === undefined ? {} : { cursor }, { timeout });
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    });
  }

  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const client = this.requireClient();
    const onProgress = options.onProgress;
    const timeout = this.toolTimeoutMs;
    const result = await client
      .callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout,
        ...(onProgress ? { onprogress: onProgress, resetTimeoutOnProgress: false } : {}),
      })
      .catch((error: unknown) => {
        // The SDK's own timeout (it has told the server to cancel): say which setting ended the call.
        if (isTimeoutOf(error, timeout))
          throw new Error(
            `MCP server "${this.name}" did not answer the call to ${tool} within ${timeout / 1000} s (tool_timeout_sec)`,
            { cause: error },
          );
        throw error;
      });
    // The SDK's result type also allows the legacy `toolResult` form; Weft reads `content`.
    return 'content' in result
      ? (result as CallToolResult)
      : { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
  }

  listResources(cursor: string | undefined, signal: AbortSignal): Promise<ListResourcesResult> {
    return this.requireClient().listResources(cursor === undefined ? {} : { cursor }, {
      signal,
      timeout: this.toolTimeoutMs,
    });
  }

  listResourceTemplates(cursor: string | undefined, signal: AbortSignal): Promise<ListResourceTemplatesResult> {
    return this.requireClient().listResourceTemplates(cursor === undefined ? {} : { cursor }, {
      signal,
      timeout: this.toolTimeoutMs,
    });
  }

  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.requireClient().readResource({ uri }, { signal, timeout: this.toolTimeoutMs });
  }

  /** Whether the server declared resources. */
  get hasResources(): boolean {
    return this.capabilities !== null && 'resources' in this.capabilities;
  }

  /** `dispose`. */
  close(): Promise<void> {
    return this.dispose();
  }

  /** Closes the connection and stops the server's process (a stdio server); a server already gone is no error. */
  async dispose(): Promise<void> {
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

/** The SDK's "Request timed out" error for a request sent with this timeout. */
function isTimeoutOf(error: unknown, timeoutMs: number): boolean {
  if (!(error instanceof Error) || !('code' in error) || error.code !== ErrorCode.RequestTimeout) return false;
  const data = 'data' in error ? error.data : undefined;
  return typeof data === 'object' && data !== null && 'timeout' in data && data.timeout === timeoutMs;
}
