import { describeZodError } from '../../src-preload/protocol';
import { isAbortError } from '../util/abort';
import { errorMessage } from '../util/errors';
import type { ToolSpec } from '../model/types';
import type { HookToolCall, ToolCall, ToolContext, ToolHandler, ToolResult } from './types';

/**
 * Tools that come and go while a session lives (an MCP server's tools once it has started). Asked
 * afresh for every model request.
 */
export interface ToolSource {
  /** The handlers by the name the model calls them (a namespaced call is `<namespace>__<name>`). */
  handler(name: string): ToolHandler | undefined;
  /** Specs for the model, as the source chooses to present them (e.g. one namespace per server). */
  specs(): ToolSpec[];
  /** Waits until the source's tools are known (bounded by the source's own timeouts); may throw. */
  prepare(signal: AbortSignal): Promise<void>;
}

/** The tools one session offers the model, and the router that runs the model's calls. */
export class ToolRegistry {
  private readonly handlers = new Map<string, ToolHandler>();
  private readonly extraSpecs: ToolSpec[] = [];
  private readonly sources: ToolSource[] = [];

  register(handler: ToolHandler): this {
    if (this.handlers.has(handler.name)) throw new Error(`tool "${handler.name}" is registered twice`);
    this.handlers.set(handler.name, handler);
    return this;
  }

  /** A hosted tool the provider runs itself (e.g. web_search): sent to the model, never dispatched. */
  addHostedTool(spec: ToolSpec): this {
    this.extraSpecs.push(spec);
    return this;
  }

  addSource(source: ToolSource): this {
    this.sources.push(source);
    return this;
  }

  get(name: string): ToolHandler | undefined {
    const own = this.handlers.get(name);
    if (own) return own;
    for (const source of this.sources) {
      const found = source.handler(name);
      if (found) return found;
    }
    return undefined;
  }

  specs(): ToolSpec[] {
    return [
      ...[...this.handlers.values()].map((h) => h.spec),
      ...this.extraSpecs,
      ...this.sources.flatMap((s) => s.specs()),
    ];
  }

  /** Before a turn's first request: lets every source finish discovering its tools. */
  async prepare(signal: AbortSignal): Promise<void> {
    await Promise.all(this.sources.map((s) => s.prepare(signal)));
  }

  /**
   * Runs one call. Never throws for the model's mistakes: an unknown tool, unparsable arguments or a
   * failing handler all become an error output the model can read and act on. Only an abort escapes.
   */
  async dispatch(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const hooks = ctx.hooks;
    if (hooks === undefined) return this.dispatchOne(call, ctx);
    const seen = hookToolCall(call);
    const pre = await hooks.preToolUse(seen, ctx.turnId);
    if (pre.blockReason !== null)
      return { output: blockedOutput(seen, pre.blockReason), success: false, hookContext: pre.context };
    const result = await this.dispatchOne(call, ctx);
    const post = await hooks.postToolUse({ ...seen, toolResponse: result.hookResponse ?? result.output }, ctx.turnId);
    const hookContext = [...pre.context, ...post.context];
    return hookContext.length === 0 ? result : { ...result, hookContext };
  }

  private async dispatchOne(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const name = callName(call);
    const handler = this.get(name);
    if (!handler) return { output: `unsupported call: ${name}`, success: false };
    try {
      if (handler.kind === 'custom') {
        const input = call.kind === 'custom' ? call.input : call.arguments;
        return await handler.handle(input, call, ctx);
      }
      if (call.kind !== 'function') {
        return { output: `tool ${call.name} expects JSON function arguments, not free-form input`, success: false };
      }
      let raw: unknown;
      try {
        raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      } catch (error) {
        return { output: `failed to parse function arguments: ${errorMessage(error)}`, success: false };
      }
      const parsed = handler.args.safeParse(raw);
      if (!parsed.success) {
        return { output: `failed to parse function arguments: ${describeZodError(parsed.error, '')}`, success: false };
      }
      return await handler.handle(parsed.data, call, ctx);
    } catch (error) {
      if (ctx.signal.aborted || isAbortError(error)) throw error;
      return { output: `execution error: ${errorMessage(error)}`, success: false };
    }
  }

  /**
   * Runs the calls of one model response. Calls of parallel tools overlap; a call of a non-parallel
   * tool waits for everything before it and holds back everything after it. Results come back in
   * call order, whatever order they finish in.
   */
  async dispatchAll(calls: ToolCall[], ctx: ToolContext): Promise<ToolResult[]> {
    const results: Promise<ToolResult>[] = [];
    let barrier: Promise<unknown> = Promise.resolve();
    let running: Promise<unknown>[] = [];
    for (const call of calls) {
      const parallel = this.get(callName(call))?.parallel ?? true;
      if (parallel) {
        const p = barrier.then(() => this.dispatch(call, ctx));
        running.push(p.catch(() => undefined));
        results.push(p);
      } else {
        const before = Promise.all([barrier, ...running]);
        const p = before.then(() => this.dispatch(call, ctx));
        barrier = p.catch(() => undefined);
        running = [];
        results.push(p);
      }
    }
    return Promise.all(results);
  }
}

/**
 * A call as hooks see it, in Codex's terms: a command (`exec_command`) is `Bash` with `{command}`, a patch is
 * `apply_patch` with `{command: <patch>}`, anything else keeps its registry name and its arguments.
 */
function hookToolCall(call: ToolCall): HookToolCall {
  const name = callName(call);
  const args = call.kind === 'custom' ? call.input : parseArguments(call.arguments);
  if (name === 'exec_command') {
    const cmd = typeof args === 'object' && args !== null && 'cmd' in args ? args.cmd : null;
    return { toolName: 'Bash', toolInput: { command: typeof cmd === 'string' ? cmd : '' }, toolUseId: call.callId };
  }
  if (name === 'apply_patch') {
    const patch =
      typeof args === 'string' ? args : typeof args === 'object' && args !== null && 'input' in args ? args.input : '';
    return { toolName: 'apply_patch', toolInput: { command: patch }, toolUseId: call.callId };
  }
  return { toolName: name, toolInput: args, toolUseId: call.callId };
}

function parseArguments(text: string): unknown {
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return text;
  }
}

/** What the model reads when a PreToolUse hook blocked its call (Codex 0.169's words, for commands and tools). */
function blockedOutput(call: HookToolCall, reason: string): string {
  const input = call.toolInput;
  const command = typeof input === 'object' && input !== null && 'command' in input ? input.command : null;
  if (call.toolName === 'Bash' && typeof command === 'string')
    return `Command blocked by PreToolUse hook: ${reason}. Command: ${command}`;
  return `Tool call blocked by PreToolUse hook: ${reason}. Tool: ${call.toolName}`;
}

/** The registry key of a call: its name, prefixed by its namespace (Responses namespaces) if any. */
export function callName(call: ToolCall): string {
  return call.kind === 'function' && call.namespace !== undefined ? `${call.namespace}__${call.name}` : call.name;
}
