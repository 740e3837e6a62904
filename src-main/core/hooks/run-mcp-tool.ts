/**
 * Runs one `mcp_tool` hook: calls `tool` of the thread's MCP server `server` with the configured `input` as
 * its arguments (the event's JSON is not passed: Codex 0.169's reference does not say how it would be), cut
 * at the hook's timeout. The answer is read as a command hook's would be: the tool's text content is its
 * "stdout" (the same JSON decisions: `decision`, `continue`, `hookSpecificOutput`, `additionalContext`) and
 * a call that succeeds is an exit 0; a result with `isError`, a server that is not running or a call that
 * fails is a hook error, shown to the user and never a block.
 */
import type { McpManager } from '../../mcp/manager';
import type { HookProcessResult } from './run-command';

/** A tool's answer as a hook reads it. */
export interface McpHookAnswer {
  /** The text items of the result's content, joined by newlines. */
  text: string;
  isError: boolean;
}

export type McpHookCaller = (
  server: string,
  tool: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<McpHookAnswer>;

export interface RunHookMcpToolOptions {
  call: McpHookCaller | null;
  server: string;
  tool: string;
  input: Record<string, unknown>;
  timeoutMs: number;
  /** Stops the call early (the thread shuts down). */
  signal: AbortSignal;
}

export async function runHookMcpTool(opts: RunHookMcpToolOptions): Promise<HookProcessResult> {
  const started = performance.now();
  const result = (over: Partial<HookProcessResult>): HookProcessResult => ({
    exitCode: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    spawnError: null,
    toolError: null,
    durationMs: Math.round(performance.now() - started),
    ...over,
  });
  if (opts.call === null) return result({ toolError: "the hook's MCP call failed: this thread has no MCP servers" });
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error('timeout')), opts.timeoutMs);
  const onAbort = (): void => stop.abort(new Error('the thread stopped the hook'));
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const timedOut = new Promise<'timeout'>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve('timeout'), { once: true }),
  );
  try {
    const answer = await Promise.race([opts.call(opts.server, opts.tool, opts.input, stop.signal), timedOut]);
    if (answer === 'timeout')
      return opts.signal.aborted ? result({ spawnError: 'the thread stopped the hook' }) : result({ timedOut: true });
    if (answer.isError)
      return result({
        stderr: answer.text,
        toolError: `the hook's MCP tool answered with an error: ${answer.text.trim() || '(no text)'}`,
      });
    return result({ exitCode: 0, stdout: answer.text });
  } catch (error) {
    if (stop.signal.aborted && !opts.signal.aborted) return result({ timedOut: true });
    return result({
      toolError: `the hook's MCP call failed: ${error instanceof Error ? error.message : String(error)}`,
    });
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
}

/** Calls hooks' tools on the thread's MCP servers, once they have started (or failed to). */
export function mcpHookCaller(mcp: McpManager): McpHookCaller {
  return async (server, tool, input, signal) => {
    // A required server that is down is the turn's error, not this hook's: only `server` matters here.
    await mcp.ready(signal).catch(() => undefined);
    const connection = mcp.connection(server);
    if (connection === undefined)
      throw new Error(`no MCP server "${server}" is configured; add [mcp_servers.${server}] to config.toml`);
    if (connection.state !== 'ready')
      throw new Error(`MCP server "${server}" is not running (${connection.error ?? connection.state})`);
    const answer = await connection.callTool(tool, input, { signal });
    const text = answer.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
    return { text, isError: answer.isError === true };
  };
}
