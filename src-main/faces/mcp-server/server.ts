/**
 * Weft as an MCP server: one `McpServer` per MCP connection, talking to the core through its own host
 * client. Each tool call runs one turn of a normal Weft thread (listed and resumable in the app):
 * the agent's text streams out as progress notifications (when the host sent a progress token),
 * approvals and questions become elicitations to the host (a sub-agent's through its parent's call, saying
 * which sub-agent asks), and cancelling the call interrupts the turn.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ElicitResultSchema,
  type CallToolResult,
  type ServerNotification as McpNotification,
  type ServerRequest as McpRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  FileChangeItem,
  JsonValue,
  ServerNotification,
  ServerRequest,
  Turn,
  UserInput,
} from '../../../src-preload/protocol';
import { VERSION } from '../../version';
import { errorMessage } from '../../util/errors';
import { finalAnswer, followTurn } from '../follow-turn';
import type { HostClient } from '../host-client';
import { trackLineage } from '../sub-agents';
import {
  commandApprovalForm,
  commandDecision,
  patchApprovalForm,
  patchDecision,
  questionsAnswer,
  questionsForm,
  type ElicitationForm,
} from '../questions';
import {
  WEFT_REPLY_TOOL_DESCRIPTION,
  WEFT_TOOL_DESCRIPTION,
  WeftReplyToolInput,
  WeftToolInput,
  WeftToolOutput,
} from './tools';

type Extra = RequestHandlerExtra<McpRequest, McpNotification>;

/** A person may take a while to answer an approval: far longer than the SDK's default request timeout. */
const ELICITATION_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface WeftMcpServerOptions {
  client: HostClient;
  log: (line: string) => void;
}

/**
 * The tool call running a turn of a thread, which approvals of that thread (and of its sub-agents) are
 * asked through.
 */
interface ActiveCall {
  extra: Extra;
  /** Settles when the call's turn has ended. */
  ended: Promise<void>;
}

export function createWeftMcpServer(options: WeftMcpServerOptions): McpServer {
  const { client, log } = options;
  const server = new McpServer({ name: 'weft', title: 'Weft', version: VERSION }, { capabilities: { tools: {} } });
  const active = new Map<string, ActiveCall>();
  // File changes under way in any thread this client hears of (its sub-agents' too), by item id: a patch
  // approval shows its diff.
  const fileChanges = new Map<string, FileChangeItem>();
  client.onNotification((n) => {
    if (n.method === 'item/started' && n.params.item.type === 'fileChange')
      fileChanges.set(n.params.item.id, n.params.item);
    else if (n.method === 'item/completed' && n.params.item.type === 'fileChange') fileChanges.delete(n.params.item.id);
  });
  const lineage = trackLineage(client, (line) => log(`weft mcp-server: ${line}`));

  const elicit = async (
    call: ActiveCall,
    form: ElicitationForm,
  ): Promise<{ action: string; content?: Record<string, unknown> }> => {
    const capabilities = server.server.getClientCapabilities();
    if (!capabilities?.elicitation) {
      log('weft mcp-server: the host cannot answer elicitations (it did not declare the capability); refusing');
      return { action: 'decline' };
    }
    return call.extra.sendRequest(
      { method: 'elicitation/create', params: { mode: 'form', ...form } },
      ElicitResultSchema,
      { timeout: ELICITATION_TIMEOUT_MS },
    );
  };

  client.setServerRequestHandler(async (request: ServerRequest) => {
    // A sub-agent's request is asked through the call running the nearest of its parents.
    const asking = await lineage.askingThread(request.params.threadId, (id) => active.has(id));
    const call = asking === null ? undefined : active.get(asking.threadId);
    const from = asking?.subAgent ?? null;
    if (!call) {
      log(
        `weft mcp-server: ${request.method} for thread ${request.params.threadId}, which no tool call is running; refusing`,
      );
      return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'decline' };
    }
    switch (request.method) {
      case 'item/commandExecution/requestApproval':
        return { decision: commandDecision(await elicit(call, commandApprovalForm(request.params, from))) };
      case 'item/fileChange/requestApproval':
        return {
          decision: patchDecision(
            await elicit(call, patchApprovalForm(request.params, fileChanges.get(request.params.itemId), from)),
          ),
        };
      case 'item/tool/requestUserInput':
        return questionsAnswer(request.params, await elicit(call, questionsForm(request.params, from)));
    }
  });

  const runTurn = async (threadId: string, prompt: string, extra: Extra): Promise<CallToolResult> => {
    const running = active.get(threadId);
    // A cancelled call's turn is being interrupted: the next prompt waits for it to end.
    if (running?.extra.signal.aborted) await running.ended;
    else if (running)
      return errorResult(threadId, `A turn is already running in thread ${threadId}; wait for its answer first.`);
    let ended = (): void => undefined;
    const call: ActiveCall = { extra, ended: new Promise((resolve) => (ended = resolve)) };
    active.set(threadId, call);
    const progressToken = extra._meta?.progressToken;
    let streamed = 0;
    const onNotification = async (n: ServerNotification): Promise<void> => {
      if (n.method === 'item/agentMessage/delta' && progressToken !== undefined) {
        streamed += n.params.delta.length;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: streamed, message: n.params.delta },
          })
          .catch(() => undefined);
      }
    };
    const input: UserInput[] = [{ type: 'text', text: prompt }];
    let turn: Turn;
    try {
      turn = await followTurn(client, { threadId, input, onNotification, signal: extra.signal });
    } catch (error) {
      return errorResult(threadId, errorMessage(error));
    } finally {
      if (active.get(threadId) === call) active.delete(threadId);
      ended();
    }
    return turnResult(threadId, turn);
  };

  server.registerTool(
    'weft',
    { title: 'Weft', description: WEFT_TOOL_DESCRIPTION, inputSchema: WeftToolInput, outputSchema: WeftToolOutput },
    async (args, extra) => {
      const config: Record<string, JsonValue> = { ...args.config };
      if (args.profile !== undefined) config['profile'] = args.profile;
      let threadId: string;
      try {
        const started = await client.request('thread/start', {
          cwd: args.cwd,
          model: args.model,
          approvalPolicy: args['approval-policy'],
          sandbox: args.sandbox,
          baseInstructions: args['base-instructions'],
          developerInstructions: args['developer-instructions'],
          config,
        });
        threadId = started.thread.id;
      } catch (error) {
        return {
          content: [{ type: 'text', text: `Weft could not start a thread: ${errorMessage(error)}` }],
          isError: true,
        };
      }
      return runTurn(threadId, args.prompt, extra);
    },
  );

  server.registerTool(
    'weft-reply',
    {
      title: 'Weft reply',
      description: WEFT_REPLY_TOOL_DESCRIPTION,
      inputSchema: WeftReplyToolInput,
      outputSchema: WeftToolOutput,
    },
    async (args, extra) => {
      try {
        await client.request('thread/resume', { threadId: args.threadId });
      } catch (error) {
        return errorResult(args.threadId, `Weft could not open thread ${args.threadId}: ${errorMessage(error)}`);
      }
      return runTurn(args.threadId, args.prompt, extra);
    },
  );

  return server;
}

function turnResult(threadId: string, turn: Turn): CallToolResult {
  const answer = finalAnswer(turn.items);
  if (turn.status === 'failed')
    return errorResult(
      threadId,
      `The turn failed: ${turn.error?.message ?? 'unknown error'}${answer ? `\n\n${answer}` : ''}`,
    );
  const content = turn.status === 'interrupted' && answer === '' ? 'The turn was interrupted.' : answer;
  return { content: [{ type: 'text', text: content }], structuredContent: { threadId, content } };
}

function errorResult(threadId: string, message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { threadId, content: message },
    isError: true,
  };
}
