// Second pass for the UI: the items of chosen turns, read from their event lines only. Weft's
// `weft_item_completed` events carry the items as the live thread showed them; Codex's events are
// translated (codex-items.ts), consecutive reasoning events merging into one reasoning item.
import {
  ThreadItem,
  type Turn,
  type TurnError,
  type WeftDiffCut,
  type WeftHookRunPlace,
} from '../../src-preload/protocol';
import { codexItem } from './codex-items';
import {
  AgentReasoningEvent,
  ErrorEvent,
  TurnEndedEvent,
  TurnStartedEvent,
  WeftApprovalEvent,
  WeftItemCompletedEvent,
  WeftItemFieldsEvent,
  WeftPlanUpdatedEvent,
  WeftTurnDiffEvent,
  WeftHookCompletedEvent,
  codexErrorInfoName,
  type ApprovalRecord,
  type PlanRecord,
  type RecordedTurn,
} from './events';
import { readLines, type LineRef } from './line-reader';
import { parseLine, payloadType } from './line-parse';
import type { RolloutOutline, TurnOutline } from './outline';
import type { RolloutFd } from './rollout-source';
import { diffFromFileChanges } from './turn-diff-rebuild';
import { ownScreenshotPath } from './thread-files';

/** What a turn showed besides its items: its latest plan, the approvals asked, the errors that ended it. */
export interface TurnDetails {
  turnId: string;
  plan: PlanRecord | null;
  approvals: ApprovalRecord[];
  errors: TurnError[];
}

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

/** Weft's record of a turn from its turn_started / turn_complete / turn_aborted line, or null (Codex). */
function recordOf(payload: unknown, end: boolean): RecordedTurn | null {
  const parsed = (end ? TurnEndedEvent : TurnStartedEvent).safeParse(payload);
  return parsed.success ? (parsed.data.weft_turn ?? null) : null;
}

interface TurnRecords {
  start: RecordedTurn | null;
  end: RecordedTurn | null;
}

/** The records of a turn's start and end lines. */
export function readTurnRecords(fd: RolloutFd, t: TurnOutline): TurnRecords {
  const out: TurnRecords = { start: null, end: null };
  const refs = [t.startRef, t.endRef].filter((r): r is LineRef => r !== null);
  readLines(fd, refs, (raw) => {
    const p = parseLine(raw);
    if (!p.ok) return;
    if (raw.offset === t.startRef?.offset) out.start = recordOf(p.line.payload, false);
    else out.end = recordOf(p.line.payload, true);
  });
  return out;
}

function turnOf(
  t: TurnOutline,
  items: ThreadItem[],
  start: RecordedTurn | null,
  end: RecordedTurn | null,
  diff: { diff: string; cut?: WeftDiffCut } | null,
  hookRuns: WeftHookRunPlace[] = [],
): Turn {
  // Recorded as the turn ended; for turns recorded without it (older threads, Codex's, a turn cut short),
  // rebuilt from the patches that landed.
  const weftDiff = diff?.diff ?? diffFromFileChanges(items);
  // A turn Weft saw end: its recorded status and times, as they were. Otherwise derived from line times;
  // a turn cut short (no end line) has no end time.
  const fromRecord = t.endRef !== null && end !== null && end.status !== 'inProgress';
  const cutShort = t.explicit && t.endedAtMs === null;
  const status = fromRecord ? end.status : t.status;
  const derivedDuration = t.startedAtMs !== null && t.endedAtMs !== null ? t.endedAtMs - t.startedAtMs : null;
  return {
    id: t.id,
    items,
    status,
    error:
      status === 'failed'
        ? ((fromRecord ? end.error : null) ??
          t.error ?? { message: 'the turn failed', codexErrorInfo: null, additionalDetails: null })
        : null,
    startedAt: (end ?? start)?.startedAt ?? seconds(t.startedAtMs),
    completedAt: fromRecord ? end.completedAt : cutShort ? null : seconds(t.endedAtMs),
    durationMs: fromRecord ? end.durationMs : cutShort ? null : derivedDuration,
    ...(weftDiff === null ? {} : { weftDiff }),
    ...(diff?.cut === undefined ? {} : { weftDiffCut: diff.cut }),
    ...(hookRuns.length === 0 ? {} : { weftHookRuns: hookRuns }),
  };
}

/** A browser action's screenshot as the file beside this rollout (thread-files.ts). */
function withOwnScreenshot(item: ThreadItem, rollout: string): ThreadItem {
  if (item.type !== 'browserAction' || item.screenshot === null) return item;
  const path = ownScreenshotPath(item.screenshot.path, rollout);
  return path === item.screenshot.path ? item : { ...item, screenshot: { ...item.screenshot, path } };
}

class TurnAssembler {
  readonly items: ThreadItem[] = [];
  readonly details: TurnDetails;
  /** The turn's recorded aggregated diff (`weft_turn_diff`), if any, with its totals when it was cut. */
  diff: { diff: string; cut?: WeftDiffCut } | null = null;
  /** The turn's hook runs (`weft_hook_completed`), each after the item recorded last before it. */
  readonly hookRuns: WeftHookRunPlace[] = [];
  private reasoning: Extract<ThreadItem, { type: 'reasoning' }> | null = null;

  /** `rollout`: the file the turn is read from (screenshots are looked for beside it). */
  constructor(
    turnId: string,
    private readonly rollout: string,
  ) {
    this.details = { turnId, plan: null, approvals: [], errors: [] };
  }

  add(event: string, payload: unknown, offset: number): void {
    const keepReasoning = event === 'agent_reasoning' || event === 'agent_reasoning_raw_content';
    if (!keepReasoning) this.reasoning = null;
    switch (event) {
      case 'weft_item_completed': {
        const e = WeftItemCompletedEvent.safeParse(payload);
        if (e.success) this.items.push(withOwnScreenshot(e.data.item, this.rollout));
        return;
      }
      case 'weft_item_fields': {
        const e = WeftItemFieldsEvent.safeParse(payload);
        if (!e.success) return;
        for (let i = this.items.length - 1; i >= 0; i--) {
          const item = this.items[i];
          if (item?.id !== e.data.item_id) continue;
          const merged = ThreadItem.safeParse({ ...item, ...e.data.fields });
          if (merged.success) this.items[i] = merged.data;
          return;
        }
        return;
      }
      case 'weft_approval': {
        const e = WeftApprovalEvent.safeParse(payload);
        if (e.success) {
          const { turn_id, item_id, kind, request, decision } = e.data;
          this.details.approvals.push({ turnId: turn_id, itemId: item_id, kind, request, decision });
        }
        return;
      }
      case 'weft_turn_diff': {
        const e = WeftTurnDiffEvent.safeParse(payload);
        if (e.success) this.diff = { diff: e.data.diff, ...(e.data.cut === undefined ? {} : { cut: e.data.cut }) };
        return;
      }
      case 'weft_hook_completed': {
        const e = WeftHookCompletedEvent.safeParse(payload);
        if (e.success) this.hookRuns.push({ run: e.data.run, afterItemId: this.items.at(-1)?.id ?? null });
        return;
      }
      case 'weft_plan_updated': {
        const e = WeftPlanUpdatedEvent.safeParse(payload);
        if (e.success) this.details.plan = { explanation: e.data.explanation ?? null, plan: e.data.plan };
        return;
      }
      case 'error': {
        const e = ErrorEvent.safeParse(payload);
        if (e.success) {
          this.details.errors.push(
            e.data.weft_error ?? {
              message: e.data.message,
              codexErrorInfo: codexErrorInfoName(e.data.codex_error_info),
              additionalDetails: null,
            },
          );
        }
        return;
      }
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content': {
        const e = AgentReasoningEvent.safeParse(payload);
        if (!e.success) return;
        if (!this.reasoning) {
          this.reasoning = { type: 'reasoning', id: `item-${offset}`, summary: [], content: [] };
          this.items.push(this.reasoning);
        }
        (event === 'agent_reasoning' ? this.reasoning.summary : this.reasoning.content).push(e.data.text);
        return;
      }
      default: {
        const item = codexItem(event, payload, `item-${offset}`);
        if (item) this.items.push(item);
      }
    }
  }
}

export interface TurnPage {
  turns: Turn[];
  details: TurnDetails[];
}

/** Turns `from` (inclusive) to `to` (exclusive) of the outline, with their items. */
export function materializeTurns(
  fd: RolloutFd,
  outline: RolloutOutline,
  from: number,
  to: number,
  warnings: string[],
): TurnPage {
  const chosen = outline.turns.slice(from, to);
  const refs: LineRef[] = [];
  const owner: number[] = [];
  const kind: ('start' | 'item' | 'end')[] = [];
  const add = (ref: LineRef | null, i: number, k: 'start' | 'item' | 'end'): void => {
    if (!ref) return;
    refs.push(ref);
    owner.push(i);
    kind.push(k);
  };
  chosen.forEach((t, i) => {
    add(t.startRef, i, 'start');
    for (const ref of t.itemRefs) add(ref, i, 'item');
    add(t.endRef, i, 'end');
  });
  const assemblers = chosen.map((t) => new TurnAssembler(t.id, outline.path));
  const records = chosen.map((): TurnRecords => ({ start: null, end: null }));
  readLines(fd, refs, (raw, k) => {
    const i = owner[k] ?? -1;
    const a = assemblers[i];
    const r = records[i];
    if (!a || !r) return;
    const p = parseLine(raw);
    if (!p.ok) {
      warnings.push(`${outline.path}: line at byte ${raw.offset} skipped: ${p.error}`);
      return;
    }
    const role = kind[k];
    if (role === 'start') r.start = recordOf(p.line.payload, false);
    else if (role === 'end') r.end = recordOf(p.line.payload, true);
    else {
      const event = payloadType(p.line.payload);
      if (p.line.type === 'event_msg' && event !== null) a.add(event, p.line.payload, raw.offset);
    }
  });
  return {
    turns: chosen.map((t, i) =>
      turnOf(
        t,
        assemblers[i]?.items ?? [],
        records[i]?.start ?? null,
        records[i]?.end ?? null,
        assemblers[i]?.diff ?? null,
        assemblers[i]?.hookRuns,
      ),
    ),
    details: assemblers.map((a) => a.details),
  };
}
