// A loopback MCP server (streamable HTTP) behind the SDK's own server-side OAuth pieces: mcpAuthRouter,
// requireBearerAuth and the SDK's in-memory authorization provider, which approves every authorization
// request at once (the "browser" only has to follow the redirects). One tool, `whoami`; `/plain` beside
// `/mcp` answers 401 to everything and offers no OAuth.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';

export interface OAuthMcpServer {
  /** The MCP endpoint. */
  url: string;
  provider: DemoInMemoryAuthProvider;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const provider = new DemoInMemoryAuthProvider();
  const app = express();
  app.use(express.json());
  const http = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const url = `${base}/mcp`;
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: new URL(url),
      scopesSupported: ['mcp:tools'],
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
  });
  app.post('/mcp', bearer, async (req, res) => {
    const server = new McpServer({ name: 'secure', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Says which OAuth client called', inputSchema: {}, annotations: { readOnlyHint: true } },
      async (_args, extra) => ({
        content: [{ type: 'text', text: `signed in as client ${extra.authInfo?.clientId ?? 'nobody'}` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', (_req, res) => void res.status(405).end());
  app.delete('/mcp', (_req, res) => void res.status(405).end());
  // Beside it, a server that wants credentials and offers no OAuth: 401 to everything.
  app.all('/plain', (_req, res) => void res.status(401).end());
  return {
    url,
    provider,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
