// The JSON-RPC error codes Weft answers MCP servers with (and the SDK's own timeout). The SDK's `ErrorCode` enum holds the same
// numbers, but it lives in the module that builds all of the SDK's zod schemas at import: a thread with no
// MCP server must not pay for that, so the numbers are here (test/unit/cli/lazy-imports.test.ts checks they
// match the SDK's).
export const ErrorCode = {
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  /** The SDK's: a request got no answer within its timeout. */
  RequestTimeout: -32001,
} as const;
