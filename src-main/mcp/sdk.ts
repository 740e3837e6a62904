// The MCP SDK's client side. It is large (with ajv and zod v3 it is about 600 KB of JavaScript whose
// schemas are built when it loads), so connection.ts loads it with the first server that starts:
// a thread or `weft exec` without MCP servers never pays for it.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
