import { randomUUID } from 'node:crypto';
import type { ResponseItem } from '../../../src-preload/protocol';
import { ModelError } from '../errors';
import type { ModelEvent, ModelUsage } from '../types';
import { toModelUsage } from './chunks';
import type { ChatChunk, ToolCallDelta } from './chunks';

/** Makes the ids chat providers do not send: `msg` / `rs` item ids, and `call` ids for unnamed calls. */
export type ChatIdGenerator = (kind: 'msg' | 'rs' | 'call') => string;

export const defaultChatIds: ChatIdGenerator = (kind) => `${kind}_${randomUUID().replaceAll('-', '')}`;

interface OpenText {
  id: string;
  outputIndex: number;
  text: string;
}

interface OpenCall {
  /** The provider's id, from the first chunk that names one. */
  id: string | null;
  name: string;
  arguments: string;
  outputIndex: number;
}

/**
 * Turns the chunks of one Chat Completions stream (first choice only) into Weft's `ModelEvent`s.
 *
 * Streams text and reasoning as they arrive; reasoning (`delta.reasoning_content` or `delta.reasoning`)
 * shows as a reasoning summary, and its item is finished as soon as the answer or a tool call starts.
 * The message and the tool calls (accumulated by `index`, arguments in pieces) are finished by
 * `finish()`, which ends with the one `completed`. `push` throws a non-retryable `ModelError` for
 * `finish_reason` "length" and "content_filter"; `finish` throws a retryable one when the stream ended
 * without any `finish_reason` (the provider dropped it).
 */
export class ChatStreamAssembler {
  private started = false;
  private responseId: string | null = null;
  private nextOutputIndex = 0;
  private reasoning: OpenText | null = null;
  private message: OpenText | null = null;
  /** Keyed by the provider's `index`. */
  private readonly calls = new Map<number, OpenCall>();
  private lastCallKey: number | null = null;
  private usage: ModelUsage | null = null;
  private finishReason: string | null = null;

  constructor(private readonly ids: ChatIdGenerator = defaultChatIds) {}

  push(chunk: ChatChunk): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'created' });
    }
    this.responseId ??= chunk.id ?? null;
    if (chunk.usage) this.usage = toModelUsage(chunk.usage);
    const choice = (chunk.choices ?? []).find((c) => (c.index ?? 0) === 0);
    if (!choice) return events;
    const delta = choice.delta;
    const thinking = delta?.reasoning_content ?? delta?.reasoning ?? '';
    if (thinking.length > 0) events.push(...this.reasoningDelta(thinking));
    if (delta?.content) events.push(...this.textDelta(delta.content));
    for (const call of delta?.tool_calls ?? []) events.push(...this.callDelta(call));
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      checkFinishReason(choice.finish_reason);
    }
    return events;
  }

  /** Call when the stream ended normally. */
  finish(): ModelEvent[] {
    if (this.finishReason === null) {
      throw new ModelError(
        'the model stream ended before the provider said the response was finished (no finish_reason)',
        'ResponseStreamDisconnected',
        { retryable: true, phase: 'stream' },
      );
    }
    const events: ModelEvent[] = [...this.closeReasoning()];
    if (this.message) {
      const { id, outputIndex, text } = this.message;
      const item: ResponseItem = { type: 'message', role: 'assistant', id, content: [{ type: 'output_text', text }] };
      events.push({ type: 'outputItemDone', item, outputIndex });
    }
    for (const [index, call] of [...this.calls].sort(([a], [b]) => a - b)) {
      if (call.name.length === 0) {
        throw new ModelError(`the model sent tool call #${index} without a function name`, 'Other', {
          retryable: true,
          phase: 'stream',
        });
      }
      const item: ResponseItem = {
        type: 'function_call',
        call_id: call.id ?? this.ids('call'),
        name: call.name,
        // Some providers send no arguments for parameterless calls; tools expect a JSON object.
        arguments: call.arguments.length > 0 ? call.arguments : '{}',
      };
      events.push({ type: 'outputItemDone', item, outputIndex: call.outputIndex });
    }
    events.push({ type: 'completed', responseId: this.responseId, usage: this.usage });
    return events;
  }

  private reasoningDelta(delta: string): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (!this.reasoning) {
      this.reasoning = { id: this.ids('rs'), outputIndex: this.nextOutputIndex++, text: '' };
      events.push({
        type: 'reasoningSummaryPartAdded',
        itemId: this.reasoning.id,
        outputIndex: this.reasoning.outputIndex,
        summaryIndex: 0,
      });
    }
    this.reasoning.text += delta;
    events.push({
      type: 'reasoningSummaryDelta',
      itemId: this.reasoning.id,
      outputIndex: this.reasoning.outputIndex,
      summaryIndex: 0,
      delta,
    });
    return events;
  }

  private closeReasoning(): ModelEvent[] {
    const open = this.reasoning;
    if (!open) return [];
    this.reasoning = null;
    const item: ResponseItem = { type: 'reasoning', id: open.id, summary: [{ type: 'summary_text', text: open.text }] };
    return [{ type: 'outputItemDone', item, outputIndex: open.outputIndex }];
  }

  private textDelta(delta: string): ModelEvent[] {
    const events = this.closeReasoning();
    this.message ??= { id: this.ids('msg'), outputIndex: this.nextOutputIndex++, text: '' };
    this.message.text += delta;
    events.push({ type: 'outputTextDelta', itemId: this.message.id, outputIndex: this.message.outputIndex, delta });
    return events;
  }

  private callDelta(delta: ToolCallDelta): ModelEvent[] {
    const events = this.closeReasoning();
    const key = this.callKey(delta);
    this.lastCallKey = key;
    let call = this.calls.get(key);
    if (!call) {
      call = { id: null, name: '', arguments: '', outputIndex: this.nextOutputIndex++ };
      this.calls.set(key, call);
    }
    if (delta.id && call.id === null) call.id = delta.id;
    // The name arrives whole in one chunk; some providers repeat it in later chunks.
    if (delta.function?.name && call.name.length === 0) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
    return events;
  }

  /** The provider's `index`; without one, a new id starts a new call and anything else continues the last. */
  private callKey(delta: ToolCallDelta): number {
    if (delta.index !== null && delta.index !== undefined) return delta.index;
    if (delta.id) {
      for (const [key, call] of this.calls) if (call.id === delta.id) return key;
      return this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1;
    }
    return this.lastCallKey ?? 0;
  }
}

function checkFinishReason(reason: string): void {
  if (reason === 'length') {
    throw new ModelError(
      'the model output hit the token limit (finish_reason "length") before the answer was complete; raise the provider\'s output token limit or ask for a shorter answer',
      'Other',
      { retryable: false, phase: 'stream', outputLimit: true },
    );
  }
  if (reason === 'content_filter') {
    throw new ModelError(
      'the provider\'s content filter stopped the response (finish_reason "content_filter")',
      'Other',
      { retryable: false, phase: 'stream' },
    );
  }
}
