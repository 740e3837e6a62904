// The MCP SDK's client side (client, transports, the schemas its handlers are keyed by) and Weft's OAuth
// provider over it. A connection imports this module when it first connects, so that a thread with no
// MCP server configured never loads the SDK: its modules build hundreds of zod schemas and an ajv
// validator at import, most of `weft exec`'s start-up before it was loaded this way.
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpLoginRequiredError } from './oauth';

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
export { McpLoginRequiredError, McpOAuthStore, WeftOAuthProvider } from './oauth';

/** The server wants a (new) sign-in: the SDK's UnauthorizedError, or Weft's provider refusing to open a browser. */
export function isLoginError(error: unknown): boolean {
  return (
    error instanceof UnauthorizedError ||
    error instanceof McpLoginRequiredError ||
    (error instanceof Error && error.cause !== undefined && isLoginError(error.cause))
  );
}
