import { isKnownResponseItem, type ResponseItem, type ThreadItem } from '../../src-preload/protocol';
import type { ModelEvent, ModelUsage } from '../model/types';
import type { CoreNotification, ToolCall } from '../tools/types';
import { newItemId } from '../util/ids';
import { Slicer, type Pacer } from '../util/slicer';
import {
  KINDS,
  ShownText,
  finished,
  shownItem,
  shownParts,
  toThreadItem,
  type Kind,
  type Tracked,
} from './streamed-items';

/**
 * The items a failed attempt left, handed to the next one: it carries them on (same ids) rather than
 * starting new ones, so clients see one item per thing the model says, whatever the number of attempts.
 */
export interface CarriedItems {
  readonly items: readonly Tracked[];
}

/** Where a collector sends what it sees. */
export interface CollectorHost {
  /** Sends a notification to clients now; returns what records it (called once the attempt has succeeded). */
  announce(notification: CoreNotification): () => void;
  /** Takes back an item clients were shown that no attempt kept: it completes empty and leaves the turn. */
  withdraw(turnId: string, item: ThreadItem): void;
}

export interface SampleOutcome {
  /** Output items in the order the model produced them, for the history. */
  items: ResponseItem[];
  toolCalls: ToolCall[];
  usage: ModelUsage | null;
}

/**
 * Turns one model stream (one attempt) into thread items: `item/started` → deltas → `item/completed`, with
 * the deltas of each item concatenating exactly to its completed text. One collector per attempt.
 *
 * What an attempt says counts only once it has succeeded: its completed items are sent to clients as they
 * complete but recorded (rollout) when the stream ends well (`outcome`), and nothing of it reaches the
 * history before. When it fails and is retried (`suspend`), the next attempt carries its items on under the
 * same ids (the first item of each kind takes the first carried item of that kind, and so on) and does not
 * send again what clients already hold of their text; carried items the retry never says again are
 * withdrawn when it ends. The last attempt of a failed or interrupted request (`abandon`) completes and
 * records its items as they were streamed.
 */
export class SampleCollector {
  private readonly open = new Map<string, Tracked>();
  private readonly items: ResponseItem[] = [];
  private readonly toolCalls: ToolCall[] = [];
  private usage: ModelUsage | null = null;
  /** This attempt's items, in the order they began. */
  private readonly tracked: Tracked[] = [];
  /** Items of failed attempts not taken over yet, per kind, oldest first. */
  private readonly carried = new Map<Kind, Tracked[]>();
  /** What records this attempt's completed items, in completion order. */
  private readonly completions: (() => void)[] = [];

  constructor(
    private readonly threadId: string,
    private readonly turnId: string,
    private readonly host: CollectorHost,
    carried: CarriedItems | null = null,
  ) {
    for (const t of carried?.items ?? []) {
      const queue = this.carried.get(t.kind) ?? [];
      queue.push(t);
      this.carried.set(t.kind, queue);
    }
  }

  /** Completes the items of a failed attempt as they were (no attempt follows): records them, in slices. */
  static async close(
    threadId: string,
    turnId: string,
    host: CollectorHost,
    carried: CarriedItems,
    pacer: Pacer = new Slicer(),
  ): Promise<void> {
    for (const t of carried.items) {
      if (t.clientCompleted) t.record?.();
      else host.announce({ method: 'item/completed', params: { threadId, turnId, item: shownItem(t) } })();
      await pacer.pace();
    }
  }

  handle(event: ModelEvent): void {
    switch (event.type) {
      case 'created':
        return;
      case 'outputItemAdded':
        this.onAdded(event.item, { itemId: itemIdOf(event.item), outputIndex: event.outputIndex });
        return;
      case 'outputTextDelta': {
        const open = this.ensureMessage(event);
        this.sendDelta(open, open.text.append(event.delta), (delta) => ({
          method: 'item/agentMessage/delta',
          params: { threadId: this.threadId, turnId: this.turnId, itemId: open.id, delta },
        }));
        return;
      }
      case 'reasoningSummaryPartAdded': {
        const open = this.ensureReasoning(event);
        this.part(open, 'summary', event.summaryIndex);
        if (open.clientCompleted || event.summaryIndex < open.partsShown) return;
        open.partsShown = event.summaryIndex + 1;
        this.host.announce({
          method: 'item/reasoning/summaryPartAdded',
          params: { threadId: this.threadId, turnId: this.turnId, itemId: open.id, summaryIndex: event.summaryIndex },
        });
        return;
      }
      case 'reasoningSummaryDelta': {
        const open = this.ensureReasoning(event);
        const part = this.part(open, 'summary', event.summaryIndex);
        this.sendDelta(open, part.append(event.delta), (delta) => ({
          method: 'item/reasoning/summaryTextDelta',
          params: {
            threadId: this.threadId,
            turnId: this.turnId,
            itemId: open.id,
            delta,
            summaryIndex: event.summaryIndex,
          },
        }));
        return;
      }
      case 'reasoningTextDelta': {
        const open = this.ensureReasoning(event);
        const part = this.part(open, 'content', event.contentIndex);
        this.sendDelta(open, part.append(event.delta), (delta) => ({
          method: 'item/reasoning/textDelta',
          params: {
            threadId: this.threadId,
            turnId: this.turnId,
            itemId: open.id,
            delta,
            contentIndex: event.contentIndex,
          },
        }));
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

  /**
   * The attempt succeeded: its items are recorded, carried items it did not say again are withdrawn. The
   * records are written in slices (`pacer`): an answer of 10,000 items recorded in one stretch held the
   * event loop, and with it every other thread, for 100 ms.
   */
  async outcome(pacer: Pacer = new Slicer()): Promise<SampleOutcome> {
    this.finishOpenItems();
    await this.settle(pacer);
    return { items: this.items, toolCalls: this.toolCalls, usage: this.usage };
  }

  /**
   * The attempt failed or was interrupted and none follows: items that started complete as they were
   * streamed (every `item/started` gets its `item/completed`) and are recorded. Nothing of this attempt
   * reaches the history.
   */
  async abandon(pacer: Pacer = new Slicer()): Promise<void> {
    this.finishOpenItems();
    await this.settle(pacer);
  }

  /** The attempt failed and another follows: its items, open or not, go to the next one, unrecorded. */
  suspend(): CarriedItems {
    const items: Tracked[] = [];
    for (const kind of KINDS) {
      items.push(...this.tracked.filter((t) => t.kind === kind), ...(this.carried.get(kind) ?? []));
    }
    this.open.clear();
    this.carried.clear();
    return { items };
  }

  private async settle(pacer: Pacer): Promise<void> {
    const withdrawn = [...this.carried.values()].flat();
    this.carried.clear();
    for (const t of withdrawn) {
      this.host.withdraw(this.turnId, toThreadItem(t, true));
      await pacer.pace();
    }
    for (const record of this.completions.splice(0)) {
      record();
      await pacer.pace();
    }
  }

  private sendDelta(open: Tracked, delta: string, notification: (delta: string) => CoreNotification): void {
    if (delta === '' || open.clientCompleted) return;
    this.host.announce(notification(delta));
  }

  /** A summary or content part of a reasoning item, begun with what clients hold of it. */
  private part(open: Tracked, which: 'summary' | 'content', index: number): ShownText {
    const parts = open[which];
    const prior = which === 'summary' ? open.priorSummary : open.priorContent;
    while (parts.length <= index) parts.push(new ShownText(prior[parts.length] ?? null));
    const part = parts[index];
    if (part === undefined) throw new Error(`reasoning ${which} part ${index} is missing`);
    return part;
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
        const streamed = open.text.text;
        if (finalText.startsWith(streamed) && finalText.length > streamed.length) {
          // A provider that sends the text only in the final item still streams it once.
          const rest = open.text.append(finalText.slice(streamed.length));
          this.sendDelta(open, rest, (delta) => ({
            method: 'item/agentMessage/delta',
            params: { threadId: this.threadId, turnId: this.turnId, itemId: open.id, delta },
          }));
        }
        open.text.text = finalText;
        open.phase = phaseOf(item) ?? open.phase;
        this.complete(open);
        return;
      }
      case 'reasoning': {
        const open = this.ensureReasoning(key);
        open.summary = item.summary.map((s) => finished(s.text));
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
        const { item: search, carried } = this.begin('webSearch', null);
        search.query = webSearchQuery(item);
        if (!carried) this.announceStarted(search);
        this.announceCompleted(search);
        return;
      }
      default:
        return;
    }
  }

  private ensureMessage(key: ItemKey, phase: Tracked['phase'] = null): Tracked {
    const existing = this.find('agentMessage', key);
    if (existing?.kind === 'agentMessage') return existing;
    const { item, carried } = this.begin('agentMessage', key);
    item.phase = phase;
    if (!carried) this.announceStarted(item);
    return item;
  }

  private ensureReasoning(key: ItemKey): Tracked {
    const existing = this.find('reasoning', key);
    if (existing?.kind === 'reasoning') return existing;
    const { item, carried } = this.begin('reasoning', key);
    if (!carried) this.announceStarted(item);
    return item;
  }

  /** Events name an item by id, by output index, or (some providers) by neither: try each in turn. */
  private find(kind: Kind, key: ItemKey): Tracked | undefined {
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

  /**
   * A new item of this attempt: the oldest carried item of that kind (clients have it already), else a
   * new one. `key` null: an item that completes at once (not kept open).
   */
  private begin(kind: Kind, key: ItemKey | null): { item: Tracked; carried: boolean } {
    const prior = this.carried.get(kind)?.shift();
    const item: Tracked = {
      kind,
      id: prior?.id ?? newItemId(),
      phase: null,
      text: new ShownText(prior && !prior.clientCompleted ? prior.text.clientText : null),
      summary: [],
      content: [],
      priorSummary: prior && !prior.clientCompleted ? shownParts(prior.summary, prior.priorSummary) : [],
      priorContent: prior && !prior.clientCompleted ? shownParts(prior.content, prior.priorContent) : [],
      partsShown: prior?.partsShown ?? 0,
      query: '',
      clientCompleted: prior?.clientCompleted ?? false,
      record: null,
    };
    this.tracked.push(item);
    if (key !== null) {
      const keys = keysOf(key);
      for (const k of keys.length > 0 ? keys : [`anon:${item.id}`]) this.open.set(k, item);
    }
    return { item, carried: prior !== undefined };
  }

  private announceStarted(t: Tracked): void {
    this.host.announce({
      method: 'item/started',
      params: { threadId: this.threadId, turnId: this.turnId, item: toThreadItem(t, t.kind !== 'webSearch') },
    });
  }

  /** Completes an open item (once). */
  private complete(open: Tracked): void {
    let found = false;
    for (const [k, v] of this.open) {
      if (v === open) {
        this.open.delete(k);
        found = true;
      }
    }
    if (found) this.announceCompleted(open);
  }

  private announceCompleted(t: Tracked): void {
    const item = toThreadItem(t, false);
    t.record = this.host.announce({
      method: 'item/completed',
      params: { threadId: this.threadId, turnId: this.turnId, item },
    });
    t.clientCompleted = true;
    this.completions.push(t.record);
  }

  private finishOpenItems(): void {
    for (const open of new Set(this.open.values())) this.complete(open);
  }
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

function phaseOf(item: ResponseItem): Tracked['phase'] {
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
