// The items of a model stream as the attempts that stream them know them: each item's text so far and
// what clients were sent of it (a retried request streams its answer again into items clients hold).
import type { ThreadItem } from '../../src-preload/protocol';

/**
 * One streamed text of an item (an agent message's text, a reasoning summary part) and what clients were
 * sent of it. A retried model request streams its answer from the start again into an item the failed
 * attempt had started: clients already hold that attempt's text, so deltas that say it again are not
 * sent, and what goes past it is. Once the new text departs from what clients hold, nothing more is sent
 * (deltas cannot take text back): the item's `item/completed` carries the whole text.
 */
export class ShownText {
  /** The text of this attempt so far. */
  text = '';
  /** What clients hold, while this attempt has not caught up with it (or has departed from it); else null. */
  private ahead: string | null;
  private departed = false;

  constructor(clientText: string | null = null) {
    this.ahead = clientText === null || clientText === '' ? null : clientText;
  }

  /** What clients hold of this text now. */
  get clientText(): string {
    return this.ahead ?? this.text;
  }

  /** Appends a delta; returns what to send to clients of it ('' = nothing). */
  append(delta: string): string {
    const at = this.text.length;
    this.text += delta;
    if (this.departed) return '';
    const ahead = this.ahead;
    if (ahead === null) return delta;
    const overlap = Math.min(delta.length, Math.max(0, ahead.length - at));
    if (!ahead.startsWith(delta.slice(0, overlap), at)) {
      this.departed = true;
      return '';
    }
    if (at + delta.length < ahead.length) return '';
    this.ahead = null;
    return delta.slice(overlap);
  }
}

/** The items a model stream makes: what clients see of them while they stream. */
export type Kind = 'agentMessage' | 'reasoning' | 'webSearch';

export interface Tracked {
  kind: Kind;
  id: string;
  phase: 'commentary' | 'final_answer' | null;
  text: ShownText;
  summary: ShownText[];
  content: ShownText[];
  /** What clients hold of each summary / content part (from a failed attempt), for the parts not begun yet. */
  priorSummary: readonly string[];
  priorContent: readonly string[];
  /** Summary parts clients know of. */
  partsShown: number;
  query: string;
  /** Clients hold the item completed: deltas are not sent for it, only its next `item/completed`. */
  clientCompleted: boolean;
  /** Records the item's latest `item/completed` (null while this attempt has not completed it). */
  record: (() => void) | null;
}

export const KINDS: readonly Kind[] = ['agentMessage', 'reasoning', 'webSearch'];

export function finished(text: string): ShownText {
  const part = new ShownText();
  part.text = text;
  return part;
}

/** The item as this attempt has it; `starting`: as `item/started` (or a withdrawal) shows it, empty. */
export function toThreadItem(t: Tracked, starting: boolean): ThreadItem {
  switch (t.kind) {
    case 'agentMessage':
      return { type: 'agentMessage', id: t.id, text: starting ? '' : t.text.text, phase: t.phase };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: t.id,
        summary: starting ? [] : t.summary.map((p) => p.text),
        content: starting ? [] : t.content.map((p) => p.text),
      };
    case 'webSearch':
      return { type: 'webSearch', id: t.id, query: starting ? '' : t.query };
  }
}

/** The item as clients hold it. */
export function shownItem(t: Tracked): ThreadItem {
  switch (t.kind) {
    case 'agentMessage':
      return { type: 'agentMessage', id: t.id, text: t.text.clientText, phase: t.phase };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: t.id,
        summary: shownParts(t.summary, t.priorSummary),
        content: shownParts(t.content, t.priorContent),
      };
    case 'webSearch':
      return { type: 'webSearch', id: t.id, query: t.query };
  }
}

/** What clients hold of each part: this attempt's parts where it has begun them, else the earlier ones. */
export function shownParts(parts: readonly ShownText[], prior: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(parts.length, prior.length); i++) out.push(parts[i]?.clientText ?? prior[i] ?? '');
  return out;
}
