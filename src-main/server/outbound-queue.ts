/**
 * Per-connection outgoing queue shared by the stdio and WebSocket transports. While the client keeps up,
 * each message is serialized and written straight through. When the sink reports congestion, messages
 * wait here; streaming deltas that pile up are merged, and a client that still cannot keep up is
 * dropped rather than allowed to grow the server's memory without bound.
 */
import { errorMessage } from '../util/errors';

/** Default ceiling on bytes waiting in one connection's queue before the connection is dropped. */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Notifications whose `params.delta` strings may be concatenated when several of them wait in a row for
 * the same item: the client's view after one merged delta equals its view after the separate ones.
 */
export const COALESCIBLE_DELTA_METHODS: ReadonlySet<string> = new Set([
  'item/agentMessage/delta',
  'item/reasoning/summaryTextDelta',
  'item/reasoning/textDelta',
  'item/commandExecution/outputDelta',
  'item/fileChange/outputDelta',
]);

/**
 * Notifications that each carry the whole of something about one turn (its diff, its plan, its token usage,
 * the size of its diff): while one of them waits, a newer one for the same thread and turn replaces it,
 * sent where the newer one was queued. A client that cannot keep up with eight busy threads is then not
 * also sent every intermediate diff of up to a megabyte.
 */
export const SNAPSHOT_METHODS: ReadonlySet<string> = new Set([
  'turn/diff/updated',
  'turn/plan/updated',
  'thread/tokenUsage/updated',
  'weft/turn/diffChanged',
]);

/** Where serialized messages go (one JSON text per call, without a trailing newline). */
export interface OutboundSink {
  /**
   * Writes one message. Returns false when the sink is congested; the queue then holds further messages
   * until the transport calls {@link OutboundQueue.drained}.
   */
  write(text: string): boolean;
}

export interface OutboundQueueOptions {
  /** The client, for the overflow log line, e.g. `stdio` or `ws 127.0.0.1:53122`. */
  label: string;
  /** Bytes allowed to wait before the connection is dropped. Default {@link DEFAULT_MAX_QUEUED_BYTES}. */
  maxQueuedBytes?: number;
  /** Receives the one log line written when the client is dropped. */
  log: (line: string) => void;
  /** Called once when the queue overflows: the transport closes the connection. */
  onOverflow: () => void;
  /**
   * Streaming deltas are held this long (about a frame) and merged per item before they are written; any
   * other message writes what is held at once, before it, so the order never changes and answers never
   * wait. Unset: deltas go straight through while the sink keeps up. (8 agents streaming into one page sent
   * it some 5,000 messages in 40 s, most of them a few characters of a command's output, each one a
   * WebSocket frame, a JSON.parse and a store update in the page.)
   */
  holdDeltasMs?: number;
}

/** A queued delta, kept as parts so that merging stays cheap; serialized when it is written. */
interface DeltaEntry {
  readonly kind: 'delta';
  readonly method: string;
  /** `params` without `delta` (all primitives): a later delta merges only if these are identical. */
  readonly rest: Readonly<Record<string, Primitive>>;
  readonly deltas: string[];
  bytes: number;
}

interface TextEntry {
  readonly kind: 'text';
  readonly text: string;
  readonly bytes: number;
}

/** A waiting snapshot, with the key a newer one of the same kind replaces it by. */
interface SnapshotEntry extends Omit<TextEntry, 'kind'> {
  readonly kind: 'snapshot';
  readonly key: string;
}

type Entry = DeltaEntry | TextEntry | SnapshotEntry;

export class OutboundQueue {
  readonly #sink: OutboundSink;
  readonly #options: OutboundQueueOptions;
  readonly #maxQueuedBytes: number;
  #entries: Entry[] = [];
  /** Index of the next entry to write; the array is compacted when it has been consumed. */
  #head = 0;
  #queuedBytes = 0;
  #congested = false;
  #closed = false;
  #idleWaiters: (() => void)[] = [];
  #sentWaiters: (() => void)[] = [];
  /** Set while deltas are held (see `holdDeltasMs`). */
  #holding: NodeJS.Timeout | null = null;
  /** Where each waiting snapshot is in `#entries`, by its key. */
  #snapshots = new Map<string, number>();
  /**
   * The deltas held in the current hold, by item (method and params but the delta). Only deltas wait in a
   * hold, so a delta joins its item's entry wherever it stands: eight agents streaming at once interleave
   * their items, and joined only with the last entry they went out as nearly one message per delta.
   */
  #held = new Map<string, DeltaEntry>();

  constructor(sink: OutboundSink, options: OutboundQueueOptions) {
    this.#sink = sink;
    this.#options = options;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /** Bytes (approximate: UTF-16 code units of the JSON) currently waiting. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Messages currently waiting (a merged run of deltas counts once). */
  get queuedMessages(): number {
    return this.#entries.length - this.#head;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends `message` now if the sink keeps up, otherwise queues it. Ignored once the queue is closed.
   * A message that cannot be serialized (a cycle, a BigInt) is logged and dropped; it never throws.
   */
  send(message: object): void {
    if (this.#closed) return;
    if (this.#holding !== null || (this.#options.holdDeltasMs !== undefined && this.#canHold(message))) {
      this.#hold(message);
      return;
    }
    const straight = !this.#congested && this.queuedMessages === 0;
    let text: string | undefined;
    try {
      if (straight) text = JSON.stringify(message);
      else this.#enqueue(message);
    } catch (error) {
      const method: unknown = Reflect.get(message, 'method');
      const what = typeof method === 'string' ? `an outgoing ${method} message` : 'an outgoing message';
      this.#options.log(
        `weft: dropped ${what} to ${this.#options.label}: it cannot be sent as JSON (${errorMessage(error)})`,
      );
      return;
    }
    if (text !== undefined) this.#congested = !this.#sink.write(text);
    else if (this.#queuedBytes > this.#maxQueuedBytes) this.#overflow();
  }

  /** Whether `message` starts holding: a delta, while nothing else waits and the sink keeps up. */
  #canHold(message: object): boolean {
    return !this.#congested && this.queuedMessages === 0 && deltaParts(message) !== null;
  }

  /** Queues `message` while deltas are held; anything but a delta writes what is held, then itself. */
  #hold(message: object): void {
    try {
      this.#enqueue(message, true);
    } catch (error) {
      const method: unknown = Reflect.get(message, 'method');
      const what = typeof method === 'string' ? `an outgoing ${method} message` : 'an outgoing message';
      this.#options.log(
        `weft: dropped ${what} to ${this.#options.label}: it cannot be sent as JSON (${errorMessage(error)})`,
      );
    }
    if (deltaParts(message) === null) this.#release();
    else this.#holding ??= setTimeout(() => this.#release(), this.#options.holdDeltasMs);
  }

  /** Ends a hold: writes what is held, as far as the sink takes it (the rest waits for `drained`). */
  #release(): void {
    if (this.#holding !== null) clearTimeout(this.#holding);
    this.#holding = null;
    this.#held.clear();
    if (this.#congested) {
      if (this.#queuedBytes > this.#maxQueuedBytes) this.#overflow();
      return;
    }
    this.drained();
  }

  /** The transport's sink has room again: write what waits, until it is congested again or empty. */
  drained(): void {
    if (this.#closed) return;
    this.#congested = false;
    while (!this.#congested && this.#head < this.#entries.length) {
      const entry = this.#entries[this.#head];
      if (entry === undefined) break;
      this.#entries[this.#head] = PLACEHOLDER;
      this.#head += 1;
      if (entry === PLACEHOLDER) continue;
      if (entry.kind === 'snapshot') this.#snapshots.delete(entry.key);
      this.#queuedBytes -= entry.bytes;
      this.#congested = !this.#sink.write(serialize(entry));
    }
    if (this.#head === this.#entries.length) {
      this.#entries = [];
      this.#head = 0;
      this.#snapshots.clear();
      this.#notifyIdle();
      if (!this.#congested) this.#notifySent();
    }
  }

  /**
   * Resolves when everything sent so far was taken by the sink without congestion (the transport had room
   * for it), or when the queue closes.
   */
  whenSent(): Promise<void> {
    if (this.#closed || (!this.#congested && this.queuedMessages === 0)) return Promise.resolve();
    return new Promise((resolve) => this.#sentWaiters.push(resolve));
  }

  /** Resolves when nothing waits in the queue (immediately if empty; also when the queue closes). */
  whenIdle(): Promise<void> {
    if (this.#closed || this.queuedMessages === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops sending and forgets what waits. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#holding !== null) clearTimeout(this.#holding);
    this.#holding = null;
    this.#entries = [];
    this.#head = 0;
    this.#snapshots.clear();
    this.#held.clear();
    this.#queuedBytes = 0;
    this.#notifyIdle();
    this.#notifySent();
  }

  /** Queues `message`; `holding`: it comes in a hold (see `#held`). */
  #enqueue(message: object, holding = false): void {
    const delta = deltaParts(message);
    if (delta === null) {
      const text = JSON.stringify(message);
      const key = snapshotKey(message);
      if (key === null) {
        this.#push({ kind: 'text', text, bytes: text.length });
        return;
      }
      // The older one, still waiting, is dropped; the newer goes where it comes in the order.
      const older = this.#snapshots.get(key);
      const olderEntry = older === undefined ? undefined : this.#entries[older];
      if (older !== undefined && older >= this.#head && olderEntry !== undefined) {
        this.#entries[older] = PLACEHOLDER;
        this.#queuedBytes -= olderEntry.bytes;
      }
      this.#snapshots.set(key, this.#entries.length);
      this.#push({ kind: 'snapshot', key, text, bytes: text.length });
      return;
    }
    const rest = restOf(delta.params);
    const key = holding ? `${delta.method}\u0000${JSON.stringify(rest)}` : null;
    const last = this.#entries.length > this.#head ? this.#entries[this.#entries.length - 1] : undefined;
    const same =
      key !== null
        ? this.#held.get(key)
        : last?.kind === 'delta' && last.method === delta.method && sameRest(last.rest, delta.params)
          ? last
          : undefined;
    if (same !== undefined) {
      same.deltas.push(delta.delta);
      same.bytes += delta.delta.length;
      this.#queuedBytes += delta.delta.length;
      return;
    }
    const bytes = delta.method.length + estimateBytes(rest) + delta.delta.length + ENVELOPE_BYTES;
    const entry: DeltaEntry = { kind: 'delta', method: delta.method, rest, deltas: [delta.delta], bytes };
    if (key !== null) this.#held.set(key, entry);
    this.#push(entry);
  }

  #push(entry: Entry): void {
    this.#entries.push(entry);
    this.#queuedBytes += entry.bytes;
  }

  #overflow(): void {
    const { label, log, onOverflow } = this.#options;
    const queued = formatBytes(this.#queuedBytes);
    const limit = formatBytes(this.#maxQueuedBytes);
    log(
      `weft: client ${label} is not reading fast enough: ${queued} of outgoing messages queued ` +
        `(limit ${limit}); dropping the connection`,
    );
    this.close();
    onOverflow();
  }

  #notifyIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #notifySent(): void {
    const waiters = this.#sentWaiters;
    this.#sentWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** Fills consumed slots so the array keeps no reference to sent messages. */
const PLACEHOLDER: Entry = { kind: 'text', text: '', bytes: 0 };
/** Rough size of `{"method":…,"params":{…,"delta":…}}` around the parts, for accounting only. */
const ENVELOPE_BYTES = 40;

type Primitive = string | number | boolean | null;

interface DeltaParts {
  method: string;
  params: object;
  delta: string;
}

/**
 * The parts of a coalescible delta notification, or null for any other message (including a delta
 * whose params hold anything but primitives: those are passed on unmerged).
 */
function deltaParts(message: object): DeltaParts | null {
  const method: unknown = Reflect.get(message, 'method');
  if (typeof method !== 'string' || !COALESCIBLE_DELTA_METHODS.has(method)) return null;
  if (Reflect.has(message, 'id')) return null;
  const params: unknown = Reflect.get(message, 'params');
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return null;
  const delta: unknown = Reflect.get(params, 'delta');
  if (typeof delta !== 'string' || typeof Reflect.get(params, 'itemId') !== 'string') return null;
  for (const value of Object.values(params)) if (!isPrimitive(value)) return null;
  return { method, params, delta };
}

function isPrimitive(value: unknown): value is Primitive {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function restOf(params: object): Record<string, Primitive> {
  const rest: Record<string, Primitive> = {};
  for (const [key, value] of Object.entries(params)) if (key !== 'delta' && isPrimitive(value)) rest[key] = value;
  return rest;
}

/** True when `params` (minus `delta`) has exactly the fields and values of `rest`. */
function sameRest(rest: Readonly<Record<string, Primitive>>, params: object): boolean {
  let count = 0;
  for (const [key, value] of Object.entries(params)) {
    if (key === 'delta') continue;
    if (!Object.hasOwn(rest, key) || rest[key] !== value) return false;
    count += 1;
  }
  return count === Object.keys(rest).length;
}

/** Approximate JSON size of a flat object, for queue accounting. */
function estimateBytes(rest: Readonly<Record<string, Primitive>>): number {
  let bytes = 2;
  for (const [key, value] of Object.entries(rest))
    bytes += key.length + 4 + (typeof value === 'string' ? value.length + 2 : 8);
  return bytes;
}

/** The key a newer snapshot replaces a waiting one by (method, thread, turn); null for anything else. */
function snapshotKey(message: object): string | null {
  const method: unknown = Reflect.get(message, 'method');
  if (typeof method !== 'string' || !SNAPSHOT_METHODS.has(method) || Reflect.has(message, 'id')) return null;
  const params: unknown = Reflect.get(message, 'params');
  if (typeof params !== 'object' || params === null) return null;
  const threadId: unknown = Reflect.get(params, 'threadId');
  const turnId: unknown = Reflect.get(params, 'turnId');
  return typeof threadId === 'string' && typeof turnId === 'string' ? JSON.stringify([method, threadId, turnId]) : null;
}

function serialize(entry: Entry): string {
  if (entry.kind !== 'delta') return entry.text;
  return JSON.stringify({ method: entry.method, params: { ...entry.rest, delta: entry.deltas.join('') } });
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
