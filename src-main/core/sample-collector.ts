import { isKnownResponseItem, type ResponseItem, type ThreadItem } from '../../src-preload/protocol';
import type { ModelEvent, ModelUsage } from '../model/types';
import type { CoreNotification, ToolCall } from '../tools/types';
import { newItemId } from '../util/ids';

interface OpenMessage {
  kind: 'agentMessage';
  id: string;
  text: string;
  phase: 'commentary' | 'final_answer' | null;
}

interface OpenReasoning {
  kind: 'reasoning';
  id: string;
  summary: string[];
  content: string[];
}

type OpenItem = OpenMessage | OpenReasoning;

export interface SampleOutcome {
  /** Output items in the order the model produced them, for the history. */
  items: ResponseItem[];
  toolCalls: ToolCall[];
  usage: ModelUsage | null;
}

/**
 * Turns one model stream into thread items: `item/started` → deltas → `item/completed`, with the
 * deltas of each item concatenating exactly to its completed text. One collector per attempt.
 */
export class SampleCollector {
  private readonly open = new Map<string, OpenItem>();
  private readonly items: ResponseItem[] = [];
  private readonly toolCalls: ToolCall[] = [];
  private usage: ModelUsage | null = null;

  constructor(
    private readonly threadId: string,
    private readonly turnId: string,
    private readonly emit: (n: CoreNotification) => void,
    private readonly onItemCompleted: (item: ThreadItem) => void,
  ) {}

  handle(event: ModelEvent): void {
    switch (event.type) {
      case 'created':
        return;
      case 'outputItemAdded':
        this.onAdded(event.item, { itemId: itemIdOf(event.item), outputIndex: event.outputIndex });
        return;
      case 'outputTextDelta': {
        const open = this.ensureMessage(event);
        open.text += event.delta;
        this.emit({
          method: 'item/agentMessage/delta',
          params: { threadId: this.threadId, turnId: this.turnId, itemId: open.id, delta: event.delta },
        });
        return;
      }
      case 'reasoningSummaryPartAdded': {
        const open = this.ensureReasoning(event);
        while (open.summary.length <= event.summaryIndex) open.summary.push('');
        this.emit({
          method: 'item/reasoning/summaryPartAdded',
          params: { threadId: this.threadId, turnId: this.turnId, itemId: open.id, summaryIndex: event.summaryIndex },
        });
        return;
      }
      case 'reasoningSummaryDelta': {
        const open = this.ensureReasoning(event);
        while (open.summary.length <= event.summaryIndex) open.summary.push('');
        open.summary[event.summaryIndex] += event.delta;
        this.emit({
          method: 'item/reasoning/summaryTextDelta',
          params: {
            threadId: this.threadId,
            turnId: this.turnId,
            itemId: open.id,
            delta: event.delta,
            summaryIndex: event.summaryIndex,
          },
        });
        return;
      }
      case 'reasoningTextDelta': {
        const open = this.ensureReasoning(event);
        while (open.content.length <= event.contentIndex) open.content.push('');
        open.content[event.contentIndex] += event.delta;
        this.emit({
          method: 'item/reasoning/textDelta',
          params: {
            threadId: this.threadId,
            turnId: this.turnId,
            itemId: open.id,
            delta: event.delta,
            contentIndex: event.contentIndex,
          },
        });
        return;
      }
      case 'outputItemDone':
        this.onDone(event.item, { itemId: itemIdOf(event.item), outputIndex: event.outputIndex });
        return;
      case 'completed':
        this.usage = event.usage;
        this.finishOpenItems();
        return;
    }
  }

  outcome(): SampleOutcome {
    return { items: this.items, toolCalls: this.toolCalls, usage: this.usage };
  }

  /**
   * The attempt failed or was interrupted: items that started stay as they were streamed, so every
   * `item/started` still gets its `item/completed`. Nothing of this attempt reaches the history.
   */
  abandon(): void {
    this.finishOpenItems();
  }

  private onAdded(item: ResponseItem, key: ItemKey): void {
    if (!isKnownResponseItem(item)) return;
    if (item.type === 'message' && item.role === 'assistant') this.ensureMessage(key, phaseOf(item));
    else if (item.type === 'reasoning') this.ensureReasoning(key);
  }

  private onDone(item: ResponseItem, key: ItemKey): void {
    this.items.push(item);
    if (!isKnownResponseItem(item)) return;
    switch (item.type) {
      case 'message': {
        if (item.role !== 'assistant') return;
        const open = this.ensureMessage(key, phaseOf(item));
        const finalText = item.content.map((c) => (c.type === 'output_text' ? c.text : '')).join('');
        if (finalText.startsWith(open.text) && finalText.length > open.text.length) {
          // A provider that sends the text only in the final item still streams it once.
          const rest = finalText.slice(open.text.length);
          this.emit({
            method: 'item/agentMessage/delta',
            params: { threadId: this.threadId, turnId: this.turnId, itemId: open.id, delta: rest },
          });
        }
        open.text = finalText;
        open.phase = phaseOf(item) ?? open.phase;
        this.complete(open);
        return;
      }
      case 'reasoning': {
        const open = this.ensureReasoning(key);
        open.summary = item.summary.map((s) => s.text);
        this.complete(open);
        return;
      }
      case 'function_call':
        this.toolCalls.push({
          kind: 'function',
          callId: item.call_id,
          name: item.name,
          arguments: item.arguments,
          ...(typeof item['namespace'] === 'string' ? { namespace: item['namespace'] } : {}),
        });
        return;
      case 'custom_tool_call':
        this.toolCalls.push({ kind: 'custom', callId: item.call_id, name: item.name, input: item.input });
        return;
      case 'web_search_call': {
        const item2: ThreadItem = { type: 'webSearch', id: newItemId(), query: webSearchQuery(item) };
        this.emit({ method: 'item/started', params: { threadId: this.threadId, turnId: this.turnId, item: item2 } });
        this.emit({ method: 'item/completed', params: { threadId: this.threadId, turnId: this.turnId, item: item2 } });
        this.onItemCompleted(item2);
        return;
      }
      default:
        return;
    }
  }

  private ensureMessage(key: ItemKey, phase: OpenMessage['phase'] = null): OpenMessage {
    const existing = this.find('agentMessage', key);
    if (existing?.kind === 'agentMessage') return existing;
    const open: OpenMessage = { kind: 'agentMessage', id: newItemId(), text: '', phase };
    this.openItem(open, key);
    return open;
  }

  private ensureReasoning(key: ItemKey): OpenReasoning {
    const existing = this.find('reasoning', key);
    if (existing?.kind === 'reasoning') return existing;
    const open: OpenReasoning = { kind: 'reasoning', id: newItemId(), summary: [], content: [] };
    this.openItem(open, key);
    return open;
  }

  /** Events name an item by id, by output index, or (some providers) by neither: try each in turn. */
  private find(kind: OpenItem['kind'], key: ItemKey): OpenItem | undefined {
    const keys = keysOf(key);
    for (const k of keys) {
      const hit = this.open.get(k);
      if (!hit) continue;
      if (hit.kind !== kind) return undefined;
      for (const alias of keys) if (!this.open.has(alias)) this.open.set(alias, hit);
      return hit;
    }
    if (key.itemId === null && key.outputIndex === null) {
      return [...this.open.values()].reverse().find((o) => o.kind === kind);
    }
    return undefined;
  }

  private openItem(open: OpenItem, key: ItemKey): void {
    const keys = keysOf(key);
    for (const k of keys.length > 0 ? keys : [`anon:${open.id}`]) this.open.set(k, open);
    this.emit({
      method: 'item/started',
      params: { threadId: this.threadId, turnId: this.turnId, item: toThreadItem(open, true) },
    });
  }

  private complete(open: OpenItem): void {
    let found = false;
    for (const [k, v] of this.open) {
      if (v === open) {
        this.open.delete(k);
        found = true;
      }
    }
    if (!found) return;
    const item = toThreadItem(open, false);
    this.emit({ method: 'item/completed', params: { threadId: this.threadId, turnId: this.turnId, item } });
    this.onItemCompleted(item);
  }

  private finishOpenItems(): void {
    for (const open of new Set(this.open.values())) this.complete(open);
  }
}

function toThreadItem(open: OpenItem, starting: boolean): ThreadItem {
  if (open.kind === 'agentMessage')
    return { type: 'agentMessage', id: open.id, text: starting ? '' : open.text, phase: open.phase };
  return {
    type: 'reasoning',
    id: open.id,
    summary: starting ? [] : [...open.summary],
    content: starting ? [] : [...open.content],
  };
}

interface ItemKey {
  itemId: string | null;
  outputIndex: number | null;
}

function keysOf(key: ItemKey): string[] {
  const keys: string[] = [];
  if (key.itemId) keys.push(`id:${key.itemId}`);
  if (key.outputIndex !== null) keys.push(`idx:${key.outputIndex}`);
  return keys;
}

function itemIdOf(item: ResponseItem): string | null {
  return 'id' in item && typeof item.id === 'string' ? item.id : null;
}

function phaseOf(item: ResponseItem): OpenMessage['phase'] {
  if (item.type !== 'message') return null;
  const phase: unknown = 'phase' in item ? item.phase : null;
  return phase === 'commentary' || phase === 'final_answer' ? phase : null;
}

function webSearchQuery(item: ResponseItem): string {
  const action: unknown = 'action' in item ? item.action : null;
  if (action && typeof action === 'object' && 'query' in action && typeof action.query === 'string')
    return action.query;
  return '';
}
