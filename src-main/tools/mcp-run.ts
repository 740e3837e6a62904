// An MCP tool call as an `mcpToolCall` item: approval (per server and per tool, the tool's annotations,
// remembered rules, session memory) → the call with its progress → the result for the model.
import type { McpToolCallItem } from '../../src-preload/protocol';
import { MCP_TOOL_APPROVAL, ServerRequests } from '../../src-preload/protocol';
import { errorMessage } from '../util/errors';
import { newItemId } from '../util/ids';
import type { SafetyServices } from './safety-services';
import type { McpCallRequest, McpCallResult, McpProgress, ToolContext, ToolResult } from './types';

export type { McpCallRequest, McpCallResult, McpProgress };

/** Progress in words: "3/10 Copying files", "3", or the message alone. */
export function progressMessage(p: McpProgress): string {
  return `${p.progress}${p.total === undefined ? '' : `/${p.total}`}${p.message ? ` ${p.message}` : ''}`;
}

/** The argv a remembered "always allow this tool" rule stores: no program is named `@mcp`. */
export function mcpRulePattern(server: string, tool: string): string[] {
  return ['@mcp', server, tool];
}

const {
  allow: ALLOW_ONCE,
  allowForSession: ALLOW_SESSION,
  allowAlways: ALLOW_ALWAYS,
  decline: DECLINE,
} = MCP_TOOL_APPROVAL;

type Verdict = 'run' | 'declined' | 'cancelled' | { refused: string };

async function decide(safety: SafetyServices, ctx: ToolContext, req: McpCallRequest, itemId: string): Promise<Verdict> {
  const pattern = mcpRulePattern(req.server, req.tool);
  const rule = safety.rules.match(pattern);
  if (rule?.decision === 'forbidden')
    return {
      refused: `a remembered rule forbids ${req.server}/${req.tool}${rule.justification ? ` (${rule.justification})` : ''}`,
    };
  const sessionKey = { script: pattern.join('\0'), cwd: '/' };
  const readOnly = req.annotations?.readOnlyHint === true && req.annotations.destructiveHint !== true;
  let ask: boolean;
  if (rule?.decision === 'prompt') ask = true;
  else if (rule?.decision === 'allow' || safety.sessionApprovals.isCommandApproved(sessionKey)) ask = false;
  else if (req.approval === 'never') ask = false;
  else if (req.approval === 'always') ask = true;
  else ask = !readOnly && ctx.policy.approvalPolicy !== 'never';
  if (!ask) return 'run';
  if (ctx.policy.approvalPolicy === 'never')
    return { refused: `${req.server}/${req.tool} needs approval, and the approval policy is "never"` };

  const destructive = req.annotations?.destructiveHint === true ? ` ${MCP_TOOL_APPROVAL.destructiveNote}` : '';
  const args = JSON.stringify(req.arguments);
  const raw = await ctx.sendRequest(
    {
      method: 'item/tool/requestUserInput',
      params: {
        threadId: ctx.threadId,
        turnId: ctx.turnId,
        itemId,
        questions: [
          {
            id: MCP_TOOL_APPROVAL.questionId,
            header: MCP_TOOL_APPROVAL.header,
            question: `Allow the MCP server "${req.server}" to run its tool "${req.tool}" with ${args.length > 400 ? `${args.slice(0, 400)}…` : args}?${destructive}`,
            isOther: false,
            isSecret: false,
            options: [
              { label: ALLOW_ONCE, description: 'Run this call' },
              { label: ALLOW_SESSION, description: 'Run this tool without asking until the thread is closed' },
              { label: ALLOW_ALWAYS, description: 'Remember: never ask again for this tool' },
              { label: DECLINE, description: 'Do not run it; the agent is told' },
            ],
          },
        ],
      },
    },
    ctx.signal,
  );
  const parsed = ServerRequests['item/tool/requestUserInput'].result.safeParse(raw);
  const choice = parsed.success ? parsed.data.answers[MCP_TOOL_APPROVAL.questionId]?.answers[0] : undefined;
  switch (choice) {
    case ALLOW_ONCE:
      return 'run';
    case ALLOW_SESSION:
      safety.sessionApprovals.approveCommand(sessionKey);
      return 'run';
    case ALLOW_ALWAYS:
      await safety.rules.add({
        pattern,
        decision: 'allow',
        justification: `MCP tool ${req.tool} of server ${req.server}`,
      });
      return 'run';
    case undefined:
      return 'cancelled';
    default:
      return 'declined';
  }
}

export async function runMcpItem(safety: SafetyServices, ctx: ToolContext, req: McpCallRequest): Promise<ToolResult> {
  const item: McpToolCallItem = {
    type: 'mcpToolCall',
    id: newItemId(),
    server: req.server,
    tool: req.tool,
    status: 'inProgress',
    arguments: req.arguments,
    result: null,
    error: null,
    durationMs: null,
  };
  const { threadId, turnId } = ctx;
  ctx.emit({ method: 'item/started', params: { threadId, turnId, item } });
  const finish = (patch: Partial<McpToolCallItem>): void => {
    ctx.emit({ method: 'item/completed', params: { threadId, turnId, item: { ...item, ...patch } } });
  };

  let verdict: Verdict;
  try {
    verdict = await decide(safety, ctx, req, item.id);
  } catch (error) {
    finish({
      status: 'failed',
      error: { message: ctx.signal.aborted ? 'the turn was interrupted' : errorMessage(error) },
      durationMs: 0,
    });
    throw error;
  }
  if (verdict !== 'run') {
    const message =
      verdict === 'declined'
        ? `the user declined the call to ${req.server}/${req.tool}`
        : verdict === 'cancelled'
          ? `the call to ${req.server}/${req.tool} was not approved`
          : verdict.refused;
    finish({ status: 'failed', error: { message }, durationMs: 0 });
    return { output: message, success: false };
  }

  const started = Date.now();
  try {
    const result = await req.call(ctx.signal, (p) => {
      ctx.emit({
        method: 'item/mcpToolCall/progress',
        params: {
          threadId,
          turnId,
          itemId: item.id,
          message: progressMessage(p),
          weftProgress: p.progress,
          weftTotal: p.total ?? null,
        },
      });
    });
    const durationMs = Date.now() - started;
    const kept: McpToolCallItem['result'] = {
      content: result.content,
      ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
      ...(result._meta === undefined ? {} : { _meta: result._meta }),
    };
    finish({ status: result.isError === true ? 'failed' : 'completed', result: kept, durationMs });
    // PostToolUse hooks get the result as the server sent it (Codex's `tool_response`).
    return { output: req.output(result, durationMs), success: result.isError !== true, hookResponse: result };
  } catch (error) {
    const durationMs = Date.now() - started;
    const message = ctx.signal.aborted ? 'the turn was interrupted' : errorMessage(error);
    finish({ status: 'failed', error: { message }, durationMs });
    if (ctx.signal.aborted) throw error;
    return { output: `tool call error: ${message}`, success: false };
  }
}
