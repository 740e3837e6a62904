// An MCP server's sampling request (`sampling/createMessage`: "ask your model this") answered with the
// thread's own model, through the same model client as the thread's turns. Only for servers configured
// with `sampling = true`, only while one of the server's tool calls runs (so the request belongs to a
// turn), and only after the user allows it (the MCP spec asks for a human in the loop); with the
// approval policy `never` it runs unasked and the user is told with a warning.
import type { CreateMessageRequest, CreateMessageResult, SamplingMessage } from '@modelcontextprotocol/sdk/types.js';
import { MessageResponseItem, ServerRequests, type ContentItem, type ResponseItem } from '../../src-preload/protocol';
import { ModelError } from '../model/errors';
import type { ModelClient } from '../model/types';
import type { ToolContext } from '../tools/types';
import { newItemId } from '../util/ids';
import { ErrorCode } from './error-codes';

/** What the spec names the error for a sampling request the user rejected. */
const USER_REJECTED = -1;
const ALLOW = 'Allow';
const DECLINE = 'Decline';
const PREVIEW_CHARS = 600;

export type McpSampler = (
  server: string,
  params: CreateMessageRequest['params'],
  ctx: ToolContext,
  signal: AbortSignal,
) => Promise<CreateMessageResult>;

export interface SamplingModel {
  client: ModelClient;
  /** The thread's model now (it can change between turns). */
  model(): string;
}

/**
 * A JSON-RPC error for the server: the SDK sends `code` and `message` as they are (an `McpError` would
 * put its own "MCP error N:" prefix into the message, and the server's SDK adds another).
 */
export class SamplingError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The error a server gets when it asks for sampling without `sampling = true`. */
export function samplingNotEnabled(server: string): SamplingError {
  const key = /^[A-Za-z0-9_-]+$/.test(server) ? server : JSON.stringify(server);
  return new SamplingError(
    ErrorCode.InvalidRequest,
    `sampling is not enabled for MCP server "${server}" (set sampling = true under [mcp_servers.${key}] in config.toml)`,
  );
}

type Block = { type: string; text?: unknown; data?: unknown; mimeType?: unknown };

function blocks(message: SamplingMessage): Block[] {
  return Array.isArray(message.content) ? message.content : [message.content];
}

/** The server's messages as Responses input; content a model request cannot carry is refused. */
function inputOf(messages: SamplingMessage[]): ResponseItem[] {
  return messages.map((message): ResponseItem => {
    const content: ContentItem[] = blocks(message).map((block): ContentItem => {
      if (block.type === 'text' && typeof block.text === 'string')
        return message.role === 'assistant'
          ? { type: 'output_text', text: block.text }
          : { type: 'input_text', text: block.text };
      if (
        block.type === 'image' &&
        message.role === 'user' &&
        typeof block.data === 'string' &&
        typeof block.mimeType === 'string'
      ) {
        return { type: 'input_image', image_url: `data:${block.mimeType};base64,${block.data}` };
      }
      throw new SamplingError(
        ErrorCode.InvalidParams,
        `Weft cannot send ${block.type} content of a ${message.role} message to the model`,
      );
    });
    return { type: 'message', role: message.role, content };
  });
}

/** The text of the request for the user: the system prompt and the last messages, cut short. */
function preview(params: CreateMessageRequest['params']): string {
  const parts: string[] = [];
  if (params.systemPrompt) parts.push(`System: ${params.systemPrompt}`);
  for (const message of params.messages) {
    const text = blocks(message)
      .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : `[${b.type}]`))
      .join(' ');
    parts.push(`${message.role === 'assistant' ? 'Assistant' : 'User'}: ${text}`);
  }
  const all = parts.join('\n');
  return all.length > PREVIEW_CHARS ? `…${all.slice(all.length - PREVIEW_CHARS)}` : all;
}

async function allowed(
  server: string,
  model: string,
  params: CreateMessageRequest['params'],
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<boolean> {
  const raw = await ctx.sendRequest(
    {
      method: 'item/tool/requestUserInput',
      params: {
        threadId: ctx.threadId,
        turnId: ctx.turnId,
        itemId: newItemId(),
        questions: [
          {
            id: 'sampling',
            header: 'MCP sampling',
            question: `The MCP server "${server}" asks the model (${model}) to answer:\n${preview(params)}\nAllow it? The answer goes to the server.`,
            isOther: false,
            isSecret: false,
            options: [
              { label: ALLOW, description: 'Send this request to the model and give the server its answer' },
              { label: DECLINE, description: 'The server is told the request was declined' },
            ],
          },
        ],
      },
    },
    signal,
  );
  const parsed = ServerRequests['item/tool/requestUserInput'].result.safeParse(raw);
  return parsed.success && parsed.data.answers['sampling']?.answers[0] === ALLOW;
}

export function mcpSampler(source: SamplingModel): McpSampler {
  return async (server, params, ctx, signal) => {
    const model = source.model();
    if (ctx.policy.approvalPolicy === 'never') {
      ctx.emit({
        method: 'warning',
        params: {
          threadId: ctx.threadId,
          message: `The MCP server "${server}" asked the model (${model}) a question; it was sent without asking (approval policy "never").`,
        },
      });
    } else if (!(await allowed(server, model, params, ctx, signal))) {
      throw new SamplingError(USER_REJECTED, `the user declined the sampling request of MCP server "${server}"`);
    }
    let text = '';
    let done = '';
    let stopReason: 'endTurn' | 'maxTokens' = 'endTurn';
    try {
      for await (const event of source.client.stream(
        {
          model,
          instructions: params.systemPrompt ?? '',
          input: inputOf(params.messages),
          tools: [],
          parallelToolCalls: false,
          reasoning: null,
          promptCacheKey: `${ctx.threadId}:mcp-sampling:${server}`,
          maxOutputTokens: params.maxTokens,
        },
        signal,
      )) {
        if (event.type === 'outputTextDelta') text += event.delta;
        else if (event.type === 'outputItemDone') {
          const item = MessageResponseItem.safeParse(event.item);
          if (item.success && item.data.role === 'assistant')
            for (const part of item.data.content)
              if (part.type === 'output_text' && typeof part['text'] === 'string') done += part['text'];
        }
      }
    } catch (error) {
      // The server asked for at most maxTokens: an answer cut there is its answer, said so in stopReason.
      if (!(error instanceof ModelError && error.options.outputLimit === true)) throw error;
      stopReason = 'maxTokens';
    }
    return {
      role: 'assistant',
      content: { type: 'text', text: done !== '' ? done : text },
      model,
      stopReason,
    };
  };
}
