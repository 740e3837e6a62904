/**
 * A remote environment as a `ConnectionHost`: each client that connects (the stdio of `weft app-server
 * --env`, a page of `weft serve --env`, the host client of `weft exec --env`) gets its own pipe to the
 * remote app server, and its messages pass through unchanged — the remote runs the agent, its sandbox,
 * checkpoints and rollouts. The relay adds what a pipe needs:
 * - the handshake: the client's `initialize` answer says the remote's version and the relay's; a remote
 *   Weft that cannot serve this one, or a pipe that fails before answering, is explained to the client;
 * - a link that drops: after the handshake, a pipe that ends is started again with backoff, the client
 *   told (`weft/environment/status`); the relay says `initialize` again, resumes every thread the client
 *   follows, and passes on, once, what happened meanwhile (`replay.ts`); requests sent while the link is
 *   down wait for it, answers to approvals the remote asks again are delivered then;
 * - terminals that outlive the link: the client's `command/exec` processes are started with the relay's
 *   keep key (`weftKeepKey`), so that a remote server that outlives the pipe (`--attach`) keeps them when
 *   it drops; once back, the relay takes each over again (`weft/terminal/adopt`, with the client's own
 *   request id, answered when the process exits) and the remote sends what it printed meanwhile. A
 *   process not kept there (the server restarted, the grace period passed) is answered as lost with the
 *   link. A client that leaves for good releases them first (`weft/terminal/release`): they end with it;
 * - a pipe that a client leaves (`parkMs`, for a `command` that does not attach, whose app server ends
 *   with the pipe): kept for the next client to take over, so that a page that reloads finds the same
 *   server there, its turns still running, instead of starting another.
 */
import { randomUUID } from 'node:crypto';
import {
  ServerNotifications,
  Thread,
  InitializeResult,
  isServerNotificationMethod,
  type ServerNotification,
  type WeftInstallableData,
  type WeftLinkDroppedData,
} from '../../../src-preload/protocol';
import type { ClientConnection, ClientSink, ConnectionHost } from '../../server/transport';
import { errorMessage } from '../../util/errors';
import { VERSION } from '../../version';
import { explainPipeExit, pipeExitNeedsWeft } from './pipe-failure';
import { PipeLink } from './pipe-link';
import { ThreadsSeen } from './replay';
import { incompatibility, installableData, remoteWeftVersion } from './version-check';

export interface RemoteTarget {
  /** The environment's name, for messages and `weft/environment/status`. */
  name: string;
  /** The program whose stdin/stdout reach the remote app server. */
  argv: string[];
  /** ssh's destination, for messages; null for a command. */
  host: string | null;
}

export interface RelayOptions {
  target: RemoteTarget;
  log: (line: string) => void;
  /** The first wait before starting the pipe again; doubled each attempt up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts before the relay gives up (the client is told `disconnected`). */
  maxAttempts?: number;
  /** How long a (re)started pipe may take to answer `initialize`. */
  handshakeTimeoutMs?: number;
  /**
   * A client's relay failed for good (never connected, or gave up reconnecting); `why` is for people,
   * `install` set when installing this Weft there would cure it.
   */
  onGiveUp?: (why: string, install?: WeftInstallableData) => void;
  /** Each pipe started, for tests and benchmarks that cut it (its process id). */
  onPipe?: (pid: number | undefined) => void;
  /**
   * For a `command` that does not attach (its app server ends with the pipe, and its running turns with
   * it): how long the pipe of a client that leaves waits for the next client, which takes it over when
   * it says `initialize` with the same params (a page that reloads). Absent or 0: it ends with the client.
   */
  parkMs?: number;
}

/** How long a client that leaves waits for the remote to take its release before its pipe ends anyway. */
const RELEASE_WAIT_MS = 2000;
/** How long a pipe being parked may take to settle what its client left there (unsubscribes, processes). */
const PARK_SETTLE_MS = 5000;

/** A pipe a client left, waiting for the next one: what it was initialized with, and the remote's answer. */
interface Parked {
  link: PipeLink;
  initializeParams: string;
  result: InitializeResult;
  timer: NodeJS.Timeout;
}

const RELAY_ID = 'weft-relay:';
/** Requests whose result makes the client follow a thread. */
const FOLLOWING = new Set(['thread/start', 'thread/resume', 'thread/fork']);
const MAX_QUEUED = 1000;

type Message = Record<string, unknown>;
type Id = string | number;

function isId(value: unknown): value is Id {
  return typeof value === 'string' || typeof value === 'number';
}

/** A reconnection found no Weft there, or one that cannot serve this one: installing this Weft would cure it. */
class NeedsWeft extends Error {
  constructor(
    message: string,
    readonly install: WeftInstallableData,
  ) {
    super(message);
  }
}

/**
 * What a server request is about: its method and item (approvals and questions name the item they are
 * for). The remote numbers its requests itself; a remote that restarted may give a new request an old id.
 */
function requestKey(method: string, params: unknown): string {
  const item =
    typeof params === 'object' && params !== null && 'itemId' in params && typeof params.itemId === 'string'
      ? params.itemId
      : '';
  return `${method} ${item}`;
}

export class RemoteHost implements ConnectionHost {
  private parked: Parked | null = null;
  /** Pipes being parked (their clients' leftovers settling there): the next client waits for them. */
  private parking = new Set<Promise<void>>();
  /** Pipes of clients that left, ending once the remote took their release. */
  private readonly leaving = new Set<Promise<void>>();

  constructor(private readonly options: RelayOptions) {}

  connect(sink: ClientSink): ClientConnection {
    const relay = new RelayConnection(this.options, sink, this);
    return { receive: (message) => relay.fromClient(message), close: () => relay.close() };
  }

  /** Whether the pipe of a client that leaves waits for the next (`parkMs`, a command that does not attach). */
  get parks(): boolean {
    const { target, parkMs } = this.options;
    return (parkMs ?? 0) > 0 && target.host === null && !target.argv.some((word) => /(^|\s)--attach(\s|$)/.test(word));
  }

  /** Whether a pipe is parked, or being parked. */
  get hasParked(): boolean {
    return this.parked !== null || this.parking.size > 0;
  }

  get parkingNow(): boolean {
    return this.parking.size > 0;
  }

  /** Resolves once no pipe is being parked any more. */
  async parkingSettled(): Promise<void> {
    while (this.parking.size > 0) await Promise.all(this.parking);
  }

  /** A pipe is being parked until `settled` resolves (then `park` was called, or the pipe ended). */
  parkingStarted(settled: Promise<void>): void {
    this.parking.add(settled);
    void settled.finally(() => this.parking.delete(settled));
  }

  /** Keeps `link` for the next client (one at a time: a pipe parked before ends); it ends after `parkMs`. */
  park(link: PipeLink, initializeParams: string, result: InitializeResult): void {
    this.dropParked();
    link.onMessage = () => undefined;
    const timer = setTimeout(() => {
      if (this.parked?.link !== link) return;
      this.options.log(`weft: no client took over the pipe to "${this.options.target.name}"; ending it`);
      this.dropParked();
    }, this.options.parkMs ?? 0);
    timer.unref();
    this.parked = { link, initializeParams, result, timer };
    void link.exited.then(() => {
      if (this.parked?.link !== link) return;
      clearTimeout(timer);
      this.parked = null;
    });
  }

  /** The parked pipe, for a client that says `initialize` with the same params; else null (and it ends). */
  unpark(initializeParams: string): Parked | null {
    const parked = this.parked;
    if (parked === null) return null;
    this.parked = null;
    clearTimeout(parked.timer);
    if (parked.initializeParams === initializeParams) return parked;
    this.leavingStarted(parked.link.stop());
    return null;
  }

  /** A pipe of a client that left ends once `ended` resolves; `close` waits for it. */
  leavingStarted(ended: Promise<void>): void {
    this.leaving.add(ended);
    void ended.finally(() => this.leaving.delete(ended));
  }

  /** The host goes: a parked pipe ends, and the pipes of clients that left have ended, their programs too. */
  async close(): Promise<void> {
    this.dropParked();
    await Promise.all([...this.parking, ...this.leaving]);
    // A pipe parked meanwhile (a client that left just now) ends as well, and is waited for.
    this.dropParked();
    await Promise.all([...this.leaving]);
  }

  private dropParked(): void {
    const parked = this.parked;
    this.parked = null;
    if (parked === null) return;
    clearTimeout(parked.timer);
    this.leavingStarted(parked.link.stop());
  }
}

class RelayConnection {
  private link: PipeLink | null = null;
  private state: 'connecting' | 'ready' | 'reconnecting' | 'closed' = 'connecting';
  private initializeParams: unknown = null;
  private initializeId: Id | null = null;
  /** The client's requests sent on the current link, not yet answered: id → method and thread. */
  private readonly inflight = new Map<Id, { method: string; threadId: string | null }>();
  /** What the client sent while the link was down, sent in order once it is back. */
  private queued: Message[] = [];
  /**
   * Server requests the client holds (asked, not answered nor resolved): id → what it is about
   * (`requestKey`), so that a request asked again is known for the same one, not one that took its id.
   */
  private readonly asked = new Map<Id, string>();
  /**
   * Requests the client answered on the current link, until the remote says they are resolved: asked
   * again on a new link, a request may reach the relay only after the client, told the link is back, has
   * answered it there; shown again, the client would answer it twice.
   */
  private readonly answered = new Map<Id, string>();
  /** The client's answers to requests asked on a link that dropped, given when the remote asks again. */
  private readonly answers = new Map<Id, { key: string; message: Message }>();
  private readonly seen = new ThreadsSeen();
  private readonly own = new Map<string, (message: Message) => void>();
  private nextOwnId = 1;
  private attempt = 0;
  /** The key the client's processes are kept under there when the link drops (`weftKeepKey`). */
  private readonly keepKey = randomUUID();
  private keptAny = false;
  /** The client's `command/exec` (and adopt) requests whose process may outlive the link: id → process id. */
  private readonly processes = new Map<Id, string>();
  /** Those whose link dropped, to take over once it is back: id → process id and why the link dropped. */
  private readonly orphans = new Map<Id, { processId: string; why: string }>();
  /** Those being taken over: id → why the link dropped (said when the remote kept nothing). */
  private readonly adopting = new Map<Id, string>();
  private fatal: string | null = null;
  private fatalData: WeftInstallableData | undefined;
  /** The remote's answer to `initialize` on the current pipe (to hand the pipe to the next client). */
  private remoteInit: InitializeResult | null = null;
  /** A pipe a client left waits on the host: the client's `initialize` decides whether to take it over. */
  private mayAdopt: boolean;
  /** The client's messages while a pipe is being parked on the host (a page that reloads at once). */
  private held: unknown[] | null = null;

  constructor(
    private readonly options: RelayOptions,
    private readonly sink: ClientSink,
    private readonly host: RemoteHost,
  ) {
    this.mayAdopt = host.hasParked;
    if (!this.mayAdopt) this.link = this.startLink();
  }

  private get name(): string {
    return this.options.target.name;
  }

  private startLink(): PipeLink {
    const link = new PipeLink(
      this.options.target.argv,
      (message) => {
        if (this.link === link) this.fromRemote(message as Message);
      },
      this.options.log,
    );
    this.options.onPipe?.(link.pid);
    this.watchExit(link);
    return link;
  }

  /** The pipe a client left, taken over: the remote's `initialize` answer is this client's. */
  private adopt(parked: Parked, id: Id): void {
    const link = parked.link;
    this.link = link;
    link.onMessage = (message) => {
      if (this.link === link) this.fromRemote(message as Message);
    };
    this.watchExit(link);
    this.remoteInit = parked.result;
    this.state = 'ready';
    this.options.log(`weft: a new client took over the pipe to "${this.name}"`);
    this.sink.send({ id, result: { ...parked.result, weftEnvironment: { name: this.name, relayVersion: VERSION } } });
  }

  private watchExit(link: PipeLink): void {
    void link.exited.then((exit) => {
      if (this.link !== link) return;
      this.link = null;
      const why = explainPipeExit(this.name, this.options.target.host, this.options.target.argv[0] ?? '', exit);
      this.linkDropped(why, pipeExitNeedsWeft(exit) ? installableData(this.name, VERSION, null) : undefined);
    });
  }

  fromClient(raw: unknown): void {
    if (this.state === 'closed' || typeof raw !== 'object' || raw === null) return;
    const message = raw as Message;
    const id = message['id'];
    const method = message['method'];
    if (this.fatal !== null) {
      if (isId(id) && typeof method === 'string') this.answerError(id, this.fatal, this.fatalData);
      return;
    }
    if (this.held !== null || (this.mayAdopt && this.host.parkingNow)) {
      // A pipe is being parked: what the client sends waits until it is, in order.
      if (this.held === null) {
        const held: unknown[] = [];
        this.held = held;
        void this.host.parkingSettled().then(() => {
          this.held = null;
          for (const m of held) this.fromClient(m);
        });
      }
      this.held.push(raw);
      return;
    }
    if (this.mayAdopt) {
      // The first message (`initialize`, for any client that keeps the protocol): the pipe a client left
      // is taken over when it was initialized alike, else it ends and this client gets its own.
      this.mayAdopt = false;
      const initializing = typeof method === 'string' && isId(id) && method === 'initialize';
      const parked = this.host.unpark(initializing ? JSON.stringify(message['params'] ?? null) : '');
      if (parked !== null && isId(id)) {
        this.initializeParams = message['params'] ?? null;
        this.adopt(parked, id);
        return;
      }
      this.link = this.startLink();
    }
    if (typeof method === 'string' && isId(id) && method === 'initialize') {
      this.initializeParams = message['params'] ?? null;
      this.initializeId = id;
      if (this.state === 'connecting') this.watchHandshake();
    }
    if (this.state === 'reconnecting') {
      const key = isId(id) ? this.asked.get(id) : undefined;
      if (typeof method !== 'string' && isId(id) && key !== undefined) {
        this.asked.delete(id);
        this.answers.set(id, { key, message });
      } else if (this.queued.length < MAX_QUEUED) {
        this.queued.push(message);
      } else if (isId(id) && typeof method === 'string') {
        this.answerError(
          id,
          `the link to environment "${this.name}" is down and ${MAX_QUEUED} messages already wait for it`,
        );
      }
      return;
    }
    this.sendToRemote(message);
  }

  private sendToRemote(raw: Message): void {
    const message = this.withKeepKey(raw);
    const id = message['id'];
    const method = message['method'];
    if (typeof method === 'string' && isId(id)) {
      const params = message['params'];
      const threadId =
        typeof params === 'object' && params !== null && 'threadId' in params && typeof params.threadId === 'string'
          ? params.threadId
          : null;
      this.inflight.set(id, { method, threadId });
    } else if (typeof method !== 'string' && isId(id)) {
      const key = this.asked.get(id);
      this.asked.delete(id);
      if (key !== undefined) this.answered.set(id, key);
    }
    this.link?.send(message);
  }

  /** A `command/exec` with a process id: started with the keep key, and noted as one that may outlive the link. */
  private withKeepKey(message: Message): Message {
    const id = message['id'];
    const method = message['method'];
    const params = message['params'];
    if (!isId(id) || typeof params !== 'object' || params === null || !('processId' in params)) return message;
    const processId = params.processId;
    if (typeof processId !== 'string') return message;
    if (method === 'weft/terminal/adopt') this.processes.set(id, processId);
    if (method !== 'command/exec') return message;
    this.processes.set(id, processId);
    this.keptAny = true;
    return { ...message, params: { ...params, weftKeepKey: this.keepKey } };
  }

  private fromRemote(message: Message): void {
    const id = message['id'];
    const method = message['method'];
    if (typeof method !== 'string') {
      if (typeof id === 'string' && id.startsWith(RELAY_ID)) {
        const waiter = this.own.get(id);
        this.own.delete(id);
        waiter?.(message);
        return;
      }
      if (isId(id)) this.fromRemoteResponse(id, message);
      return;
    }
    if (isId(id)) {
      // A server request: asked again after a reconnect, or answered while the link was down.
      const key = requestKey(method, message['params']);
      if (this.asked.get(id) === key || this.answered.get(id) === key) return;
      const answer = this.answers.get(id);
      this.answers.delete(id);
      if (answer !== undefined && answer.key === key) {
        this.link?.send(answer.message);
        return;
      }
      this.asked.set(id, key);
      this.sink.send(message);
      return;
    }
    this.fromRemoteNotification(method, message);
  }

  private fromRemoteResponse(id: Id, message: Message): void {
    const request = this.inflight.get(id);
    this.inflight.delete(id);
    const processId = this.processes.get(id);
    this.processes.delete(id);
    if (request?.method === 'weft/terminal/adopt' && processId !== undefined && 'error' in message) {
      // Not kept there: the process ended with the link after all.
      const error = message['error'];
      const detail =
        typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
          ? error.message
          : 'it was not kept';
      const why = this.adopting.get(id) ?? `the link to environment "${this.name}" dropped`;
      this.adopting.delete(id);
      this.answerError(id, `${why}; ${processId} there was not kept for the reconnect: ${detail}`, {
        weftLinkDropped: { environment: this.name, notKept: true },
      } satisfies WeftLinkDroppedData);
      return;
    }
    this.adopting.delete(id);
    if (id === this.initializeId && request?.method === 'initialize') {
      this.initializeId = null;
      this.handshakeAnswered(message);
      return;
    }
    const result = message['result'];
    if (request !== undefined && typeof result === 'object' && result !== null) {
      if (FOLLOWING.has(request.method) && 'thread' in result) {
        const thread = Thread.safeParse(result.thread);
        if (thread.success) this.seen.noteThread(thread.data);
      }
      if (request.method === 'thread/unsubscribe' && request.threadId !== null) this.seen.unfollow(request.threadId);
    }
    this.sink.send(message);
  }

  private fromRemoteNotification(method: string, message: Message): void {
    if (isServerNotificationMethod(method)) {
      const parsed = ServerNotifications[method].safeParse(message['params'] ?? {});
      if (parsed.success) {
        const notification = { method, params: parsed.data } as ServerNotification;
        if (!this.seen.pass(notification)) return;
        if (notification.method === 'serverRequest/resolved') {
          this.asked.delete(notification.params.requestId);
          this.answered.delete(notification.params.requestId);
        }
      }
    }
    this.sink.send(message);
  }

  /** A remote that never answers the first `initialize` (a command that waits on something) is given up. */
  private watchHandshake(): void {
    const timeoutMs = this.options.handshakeTimeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      if (this.state !== 'connecting' || this.fatal !== null) return;
      const why = `environment "${this.name}" did not answer within ${timeoutMs / 1000} s (${this.options.target.argv.join(' ')})`;
      // `initialize` and what was sent after it are answered with why.
      this.giveUp(why);
    }, timeoutMs);
    timer.unref();
  }

  /** The first `initialize` answer: checked, then passed on with the relay's version. */
  private handshakeAnswered(message: Message): void {
    const id = message['id'];
    const parsed = InitializeResult.safeParse(message['result']);
    if (!parsed.success) {
      this.sink.send(message);
      return;
    }
    const why = incompatibility(this.name, VERSION, parsed.data);
    if (why !== null) {
      const remote = remoteWeftVersion(parsed.data);
      const data = remote === null ? undefined : installableData(this.name, VERSION, remote);
      this.giveUp(why, data);
      if (isId(id)) this.answerError(id, why, data);
      return;
    }
    this.state = 'ready';
    this.remoteInit = parsed.data;
    this.sink.send({
      id,
      result: { ...parsed.data, weftEnvironment: { name: this.name, relayVersion: VERSION } },
    });
  }

  private linkDropped(why: string, install?: WeftInstallableData): void {
    if (this.state === 'closed') return;
    if (this.state === 'connecting') {
      // Never connected: nothing ran there; requests sent meanwhile are answered with why (giveUp).
      this.giveUp(why, install);
      return;
    }
    // Requests the remote did not answer: they may or may not have run there.
    for (const [id, request] of this.inflight) {
      const processId = this.processes.get(id);
      if (processId !== undefined && this.state === 'ready') {
        // A process there, which the remote may have kept: taken over once the link is back.
        this.orphans.set(id, { processId, why: this.adopting.get(id) ?? why });
        this.adopting.delete(id);
        continue;
      }
      // `data` says so in a form a client can tell apart (a terminal: its shell there ended with the link).
      this.answerError(id, `${why}; "${request.method}" got no answer (it may have run on "${this.name}")`, {
        weftLinkDropped: { environment: this.name },
      } satisfies WeftLinkDroppedData);
    }
    this.inflight.clear();
    for (const waiter of this.own.values()) waiter({ error: { code: -32603, message: why }, dropped: true });
    this.own.clear();
    // An answer given on the link that dropped may not have reached the remote: it asks again.
    this.answered.clear();
    if (this.state === 'ready') {
      // Answers the remote did not ask for again on the last link were settled there meanwhile.
      this.answers.clear();
      this.state = 'reconnecting';
      void this.reconnect(why, install);
    }
  }

  private async reconnect(firstWhy: string, firstInstall?: WeftInstallableData): Promise<void> {
    let why = firstWhy;
    // Set while the last attempt found no Weft there, or one that cannot serve this one.
    let install = firstInstall;
    const first = this.options.firstDelayMs ?? 250;
    const max = this.options.maxDelayMs ?? 15_000;
    const attempts = this.options.maxAttempts ?? 40;
    for (this.attempt = 1; this.attempt <= attempts; this.attempt++) {
      this.status('reconnecting', why, undefined, install);
      this.options.log(`weft: ${why}; reconnecting to "${this.name}" (attempt ${this.attempt})`);
      await new Promise((r) => setTimeout(r, Math.min(first * 2 ** (this.attempt - 1), max)));
      if (this.state === 'closed') return;
      try {
        const replayed = await this.resume();
        this.state = 'ready';
        this.status('connected', null, replayed);
        // The processes the link dropped, taken over with the client's request ids, before what was queued
        // for them (input typed meanwhile).
        const orphans = [...this.orphans];
        this.orphans.clear();
        for (const [id, { processId, why: dropped }] of orphans) {
          this.adopting.set(id, dropped);
          this.sendToRemote({ id, method: 'weft/terminal/adopt', params: { key: this.keepKey, processId } });
        }
        const queued = this.queued;
        this.queued = [];
        for (const message of queued) this.sendToRemote(message);
        return;
      } catch (error) {
        why = errorMessage(error);
        install = error instanceof NeedsWeft ? error.install : undefined;
        this.link?.close();
        this.link = null;
      }
    }
    this.status('disconnected', why, undefined, install);
    this.giveUp(`gave up reconnecting to "${this.name}" after ${attempts} attempts: ${why}`, install);
  }

  /** A new pipe: `initialize` again, then every followed thread resumed and what it missed replayed. */
  private async resume(): Promise<number> {
    const link = this.startLink();
    this.link = link;
    const ended = link.exited.then((exit) => {
      const why = explainPipeExit(this.name, this.options.target.host, this.options.target.argv[0] ?? '', exit);
      throw pipeExitNeedsWeft(exit) ? new NeedsWeft(why, installableData(this.name, VERSION, null)) : new Error(why);
    });
    ended.catch(() => undefined);
    const init = await Promise.race([this.ownRequest('initialize', this.initializeParams), ended]);
    const parsed = InitializeResult.safeParse(init);
    if (!parsed.success) throw new Error(`"${this.name}" answered initialize with something else`);
    const why = incompatibility(this.name, VERSION, parsed.data);
    if (why !== null) {
      const remote = remoteWeftVersion(parsed.data);
      throw remote === null ? new Error(why) : new NeedsWeft(why, installableData(this.name, VERSION, remote));
    }
    this.remoteInit = parsed.data;
    link.send({ method: 'initialized' });
    let replayed = 0;
    const resumeThread = async (threadId: string): Promise<Thread | null> => {
      const result = await Promise.race([this.ownRequest('thread/resume', { threadId }), ended]);
      const thread =
        typeof result === 'object' && result !== null && 'thread' in result ? Thread.safeParse(result.thread) : null;
      return thread?.success === true ? thread.data : null;
    };
    // Followed threads first; then the sub-agents they spawned while the link was down (announced, then
    // replayed like them), and theirs in turn.
    const queue = this.seen.followed().map((id) => ({ id, announce: false }));
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const thread = await resumeThread(next.id);
      if (thread === null) continue;
      if (next.announce) {
        this.seen.follow(thread.id);
        this.sink.send({ method: 'thread/started', params: { thread: { ...thread, turns: [] } } });
        replayed += 1;
      }
      for (const notification of this.seen.replay(thread)) {
        replayed += 1;
        this.sink.send(notification);
      }
      for (const id of this.seen.unfollowedChildren(thread))
        if (!queue.some((q) => q.id === id)) queue.push({ id, announce: true });
    }
    return replayed;
  }

  /** A request of the relay's own on the current link; resolves with its result, rejects with its error. */
  private ownRequest(method: string, params: unknown): Promise<unknown> {
    const id = `${RELAY_ID}${this.nextOwnId++}`;
    const timeoutMs = this.options.handshakeTimeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.own.delete(id);
        reject(new Error(`"${this.name}" did not answer ${method} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.own.set(id, (message) => {
        clearTimeout(timer);
        const error = message['error'];
        if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
          reject(
            new Error(
              message['dropped'] === true ? error.message : `"${this.name}" refused ${method}: ${error.message}`,
            ),
          );
        } else resolve(message['result']);
      });
      this.link?.send(params === null ? { id, method } : { id, method, params });
    });
  }

  private status(
    state: 'connected' | 'reconnecting' | 'disconnected',
    message: string | null,
    replayed?: number,
    install?: WeftInstallableData,
  ): void {
    this.sink.send({
      method: 'weft/environment/status',
      params: {
        environment: this.name,
        state,
        attempt: this.attempt,
        message,
        ...(replayed === undefined ? {} : { replayed }),
        ...(install === undefined ? {} : { weftInstall: install.weftInstall }),
      },
    });
  }

  private answerError(id: Id, message: string, data?: WeftLinkDroppedData | WeftInstallableData): void {
    this.sink.send({ id, error: data === undefined ? { code: -32603, message } : { code: -32603, message, data } });
  }

  private giveUp(why: string, install?: WeftInstallableData): void {
    if (this.fatal !== null) return;
    this.fatal = why;
    this.fatalData = install;
    // Requests sent on a link that never connected, or queued for one: none will be answered there.
    for (const id of this.inflight.keys()) this.answerError(id, why, install);
    this.inflight.clear();
    // Processes there the link dropped: lost with it, as far as the client can tell.
    for (const [id, orphan] of this.orphans)
      this.answerError(id, `${orphan.why}; ${orphan.processId} there was lost with the link (${why})`, {
        weftLinkDropped: { environment: this.name },
      } satisfies WeftLinkDroppedData);
    this.orphans.clear();
    this.processes.clear();
    this.adopting.clear();
    for (const message of this.queued) {
      const id = message['id'];
      if (isId(id) && typeof message['method'] === 'string') this.answerError(id, why, install);
    }
    this.queued = [];
    this.link?.close();
    this.link = null;
    this.options.onGiveUp?.(why, install);
  }

  /**
   * Hands the pipe to the host for the next client once what this one left there is settled: the threads
   * it followed unsubscribed (their turns run on; the next client resumes them and is asked what waits),
   * its processes there ended, and every request it sent answered, so that no late answer meets the next
   * client's ids. A pipe that does not settle within PARK_SETTLE_MS ends.
   */
  private park(link: PipeLink, result: InitializeResult): void {
    const waiting = new Set<Id>(this.inflight.keys());
    const initializeParams = JSON.stringify(this.initializeParams);
    let done = (): void => undefined;
    this.host.parkingStarted(new Promise<void>((resolve) => (done = resolve)));
    const settled = (): void => {
      clearTimeout(timer);
      this.host.park(link, initializeParams, result);
      done();
    };
    const timer = setTimeout(() => {
      this.options.log(`weft: the pipe to "${this.name}" did not settle for the next client; ending it`);
      link.close();
      done();
    }, PARK_SETTLE_MS);
    void link.exited.then(() => {
      clearTimeout(timer);
      done();
    });
    timer.unref();
    link.onMessage = (raw) => {
      const id = (raw as Message)['id'];
      // Answers only: a request the remote asks waits there for the next client that follows its thread.
      if (typeof (raw as Message)['method'] !== 'string' && isId(id) && waiting.delete(id) && waiting.size === 0)
        settled();
    };
    let next = 0;
    const send = (method: string, params: object): void => {
      const id = `${RELAY_ID}park:${++next}`;
      waiting.add(id);
      link.send({ id, method, params });
    };
    for (const threadId of this.seen.followed()) send('thread/unsubscribe', { threadId });
    for (const processId of new Set(this.processes.values())) send('command/exec/terminate', { processId });
    if (waiting.size === 0) settled();
  }

  close(): void {
    if (this.state === 'closed') return;
    const wasReady = this.state === 'ready';
    this.state = 'closed';
    const link = this.link;
    this.link = null;
    if (link !== null && wasReady && this.host.parks && this.remoteInit !== null) {
      this.park(link, this.remoteInit);
      return;
    }
    if (link !== null && wasReady && this.keptAny) {
      // The client left for good: its processes there end with the pipe, not kept for a reconnect. The pipe
      // ends once the remote has the release (closed at once, the bridge there could end before passing it on).
      const id = `${RELAY_ID}release`;
      let timer: NodeJS.Timeout | undefined;
      this.host.leavingStarted(
        new Promise<void>((resolve) => {
          const end = (): void => {
            clearTimeout(timer);
            void link.stop().then(resolve);
          };
          timer = setTimeout(end, RELEASE_WAIT_MS);
          link.onMessage = (message) => {
            if ((message as Message)['id'] === id) end();
          };
          void link.exited.then(end);
        }),
      );
      link.send({ id, method: 'weft/terminal/release', params: { key: this.keepKey } });
      return;
    }
    // The host's close waits for its program to have left (see PipeLink.stop).
    if (link !== null) this.host.leavingStarted(link.stop());
  }
}
