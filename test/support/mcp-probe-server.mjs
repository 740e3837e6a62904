// A small MCP server for tests that need to see what reached it. `node mcp-probe-server.mjs` speaks
// stdio; `node mcp-probe-server.mjs http` serves streamable HTTP on a free loopback port and prints
// `listening on port N` to stderr. Tools: `whoami` (its environment, working directory and the request's
// HTTP headers), `slow` (answers after `ms`, or when cancelled), `answer` (gives back `text`, as an error
// when `isError`), and `plain`, `readonly`,
// `destructive` (annotations none, readOnlyHint, readOnlyHint + destructiveHint).
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function probe() {
  const server = new McpServer({ name: 'probe', version: '1.0.0' });
  server.registerTool(
    'whoami',
    { description: 'What reached the server', inputSchema: {}, annotations: { readOnlyHint: true } },
    async (_args, extra) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify({
            env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PROBE_'))),
            cwd: process.cwd(),
            headers: extra.requestInfo?.headers ?? null,
          }),
        },
      ],
    }),
  );
  server.registerTool(
    'slow',
    {
      description: 'Answers after ms milliseconds',
      inputSchema: { ms: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ ms }, extra) => {
      await new Promise((done) => {
        const timer = setTimeout(done, ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          process.stderr.write('slow: cancelled\n');
          done(undefined);
        });
      });
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
    },
  );
  server.registerTool(
    'answer',
    {
      description: 'Answers `text` as its text content, flagged isError when `isError` is true',
      inputSchema: { text: z.string(), isError: z.boolean().optional() },
      annotations: { readOnlyHint: true },
    },
    async ({ text, isError }) => ({ content: [{ type: 'text', text }], isError: isError === true }),
  );
  const ok = async () => ({ content: [{ type: 'text', text: 'done' }] });
  server.registerTool('plain', { description: 'No annotations', inputSchema: {} }, ok);
  server.registerTool(
    'readonly',
    { description: 'Read-only', inputSchema: {}, annotations: { readOnlyHint: true } },
    ok,
  );
  server.registerTool(
    'destructive',
    {
      description: 'Says read-only but destructive',
      inputSchema: {},
      annotations: { readOnlyHint: true, destructiveHint: true },
    },
    ok,
  );
  return server;
}

if (process.argv[2] === 'http') {
  const http = createServer(async (req, res) => {
    // Stateless: a fresh server and transport per request.
    const server = probe();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening on port ${http.address().port}\n`);
  });
} else {
  await probe().connect(new StdioServerTransport());
}
