// OAuth for streamable HTTP MCP servers, as `codex mcp login` does it: `weft mcp login NAME` runs the
// authorization-code flow with PKCE (the SDK's `auth`), the browser coming back to a one-shot loopback
// listener; the client registration and tokens are kept in WEFT_HOME/mcp-oauth.json (mode 0600, written
// atomically, like the API keys in auth.json), keyed by server name and URL. A running server's
// transport reads them through the SDK's OAuthClientProvider and refreshes them; it never opens a
// browser itself: a server that needs sign-in fails with "run weft mcp login NAME". Tokens are never
// logged or sent over the protocol.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { errorMessage } from '../util/errors';
import { writePrivateJson } from '../util/private-file';

export const MCP_OAUTH_FILE_NAME = 'mcp-oauth.json';

const Entry = z.object({
  url: z.string(),
  client: OAuthClientInformationFullSchema.optional(),
  tokens: OAuthTokensSchema.optional(),
});
type Entry = z.infer<typeof Entry>;
const OAuthFile = z.object({ version: z.literal(1), servers: z.record(z.string(), Entry) });
type OAuthFile = z.infer<typeof OAuthFile>;

/** The saved sign-ins of MCP servers: WEFT_HOME/mcp-oauth.json. */
export class McpOAuthStore {
  readonly file: string;

  constructor(weftHome: string) {
    this.file = join(weftHome, MCP_OAUTH_FILE_NAME);
  }

  /** The server's entry, when it was saved for this URL. */
  async get(name: string, url: string): Promise<Entry | undefined> {
    const entry = (await this.read()).servers[name];
    return entry !== undefined && entry.url === url ? entry : undefined;
  }

  async update(name: string, url: string, patch: (entry: Entry) => Entry): Promise<void> {
    const file = await this.read();
    const current = file.servers[name];
    const base: Entry = current !== undefined && current.url === url ? current : { url };
    await this.write({ version: 1, servers: { ...file.servers, [name]: patch(base) } });
  }

  /** False when nothing was saved for the server. */
  async remove(name: string): Promise<boolean> {
    const file = await this.read();
    if (!Object.hasOwn(file.servers, name)) return false;
    await this.write({
      version: 1,
      servers: Object.fromEntries(Object.entries(file.servers).filter(([n]) => n !== name)),
    });
    return true;
  }

  private async read(): Promise<OAuthFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return { version: 1, servers: {} };
      throw new Error(`${this.file}: cannot read the MCP sign-ins (${errorMessage(error)})`, { cause: error });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new Error(`${this.file} is not valid JSON; move it aside and sign in again (weft mcp login NAME).`);
    }
    const parsed = OAuthFile.safeParse(raw);
    if (!parsed.success)
      throw new Error(`${this.file} has an unexpected shape; move it aside and sign in again (weft mcp login NAME).`);
    return parsed.data;
  }

  /** Saved with mode 0600, atomically (`writePrivateJson`). */
  private async write(content: OAuthFile): Promise<void> {
    try {
      await writePrivateJson(this.file, content);
    } catch (error) {
      throw new Error(
        `${this.file}: cannot save the MCP sign-in (${errorMessage(error)}); check that WEFT_HOME is writable`,
        { cause: error },
      );
    }
  }
}

/** A server needs the user to sign in; the transport does not open browsers. */
export class McpLoginRequiredError extends Error {
  override readonly name = 'McpLoginRequiredError';
  constructor(server: string) {
    super(
      `MCP server "${server}" needs you to sign in: run weft mcp login ${/^[A-Za-z0-9_-]+$/.test(server) ? server : JSON.stringify(server)}`,
    );
  }
}

/** The SDK's view of one server's saved sign-in. */
export class WeftOAuthProvider implements OAuthClientProvider {
  private verifier: string | null = null;
  /** The `state` of the last authorization URL, checked when the browser comes back. */
  lastState: string | null = null;

  constructor(
    private readonly store: McpOAuthStore,
    private readonly server: string,
    private readonly url: string,
    /** Where the browser comes back to (login only); absent for a running server. */
    private readonly redirect: { url: string; open(authorizationUrl: URL): Promise<void> } | null = null,
  ) {}

  get redirectUrl(): string {
    // A running server never redirects (redirectToAuthorization throws), but the SDK wants a URL for
    // the registration it might attempt.
    return this.redirect?.url ?? 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Weft',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const client = (await this.store.get(this.server, this.url))?.client;
    // A registration made for another redirect URL (a previous login's port) cannot be reused by a login.
    if (client !== undefined && this.redirect !== null && !client.redirect_uris.includes(this.redirect.url))
      return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // Only a login keeps a registration: a running server's would carry a redirect URL nobody listens on.
    if (this.redirect === null) return;
    const full = OAuthClientInformationFullSchema.safeParse({ redirect_uris: [this.redirectUrl], ...client });
    if (!full.success) return;
    await this.store.update(this.server, this.url, (e) => ({ ...e, client: full.data }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.store.get(this.server, this.url))?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.store.update(this.server, this.url, (e) => ({ ...e, tokens }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.redirect === null) throw new McpLoginRequiredError(this.server);
    await this.redirect.open(authorizationUrl);
  }

  state(): string {
    this.lastState = randomBytes(16).toString('hex');
    return this.lastState;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === null) throw new Error('no PKCE code verifier: the sign-in was not started');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'discovery') return;
    await this.store.update(this.server, this.url, (e) => ({
      url: e.url,
      ...(scope === 'tokens' && e.client !== undefined ? { client: e.client } : {}),
    }));
  }
}

export interface McpLoginOptions {
  weftHome: string;
  server: string;
  url: string;
  scopes?: string[];
  /** Shows the authorization URL to the user (opens a browser, prints it). */
  open(authorizationUrl: URL): Promise<void>;
  /** How long to wait for the browser to come back (default 5 minutes). */
  timeoutMs?: number;
  /** Gives up the sign-in (the listener closes). */
  signal?: AbortSignal;
}

/**
 * Signs in to one server: a loopback listener on 127.0.0.1 takes the redirect with the authorization
 * code, which is exchanged for tokens that are saved. Resolves once the tokens are saved.
 */
export async function mcpLogin(options: McpLoginOptions): Promise<void> {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void } | null = null;
  const codeArrived = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let provider: WeftOAuthProvider | null = null;
  // node:http through getBuiltinModule: an import of it loads undici at every host's start (see
  // browser/proxy.ts).
  const listener = process.getBuiltinModule('node:http').createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    const state = url.searchParams.get('state');
    if (code !== null && state !== null && state === provider?.lastState) {
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Signed in. You can close this page and go back to Weft.\n');
      settle?.resolve(code);
    } else {
      res
        .writeHead(400, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Sign-in failed. Go back to Weft for details.\n');
      settle?.reject(
        new Error(
          error !== null
            ? `the server refused the sign-in: ${error}${url.searchParams.get('error_description') ? ` (${url.searchParams.get('error_description')})` : ''}`
            : 'the sign-in came back without a code or with the wrong state',
        ),
      );
    }
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (listener.address() as AddressInfo).port;
  const store = new McpOAuthStore(options.weftHome);
  provider = new WeftOAuthProvider(store, options.server, options.url, {
    url: `http://127.0.0.1:${port}/callback`,
    open: options.open,
  });
  const timer = setTimeout(
    () =>
      settle?.reject(
        new Error(`the sign-in did not finish within ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s`),
      ),
    options.timeoutMs ?? 300_000,
  );
  const onAbort = (): void => settle?.reject(new Error('the sign-in was cancelled'));
  if (options.signal?.aborted === true) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // The code may never be awaited (the first step fails, or signs in without a browser).
  codeArrived.catch(() => undefined);
  try {
    const scope = options.scopes?.join(' ');
    const first = await auth(provider, { serverUrl: options.url, ...(scope ? { scope } : {}) });
    if (first === 'AUTHORIZED') return;
    const code = await codeArrived;
    const second = await auth(provider, {
      serverUrl: options.url,
      authorizationCode: code,
      ...(scope ? { scope } : {}),
    });
    if (second !== 'AUTHORIZED') throw new Error('the server did not accept the authorization code');
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
}
