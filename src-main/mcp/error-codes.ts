// The JSON-RPC error codes Weft answers MCP servers with. The SDK's `ErrorCode` enum holds the same
// numbers, but it lives in the module that builds all of the SDK's zod schemas at import: a thread with no
// MCP server must not pay for that, so the numbers are here (test/unit/cli/lazy-imports.test.ts checks they
// match the SDK's).
export const ErrorCode = {
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
} as const;
