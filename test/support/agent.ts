// Runs the real agent core (session, turn loop, tools, the `openai` SDK) against a mock Responses
// server, and records every event it emits.
import type {
  NotificationParams,
  ServerNotification,
  ServerNotificationMethod,
  ServerRequest,
} from '../../src-preload/protocol';
import type { ResolvedProvider } from '../../src-main/config/providers';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { weftConfigSchema } from '../../src-main/config/schema';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import { createSession } from '../../src-main/core/create-session';
import type { Session } from '../../src-main/core/session';
import type { SessionOptions, TurnOverrides } from '../../src-main/core/types';
import type { HostRequestSender } from '../../src-main/tools/types';
import { collectUntil, waitFor } from './wait';

export interface AgentHarness {
  session: Session;
  events: ServerNotification[];
  subscribe(listener: (n: ServerNotification) => void): () => void;
  /** Resolves with the next notification of this method that matches. */
  next<M extends ServerNotification['method']>(
    method: M,
    match?: (n: Extract<ServerNotification, { method: M }>) => boolean,
  ): Promise<Extract<ServerNotification, { method: M }>>;
  /** Starts a turn and resolves with every event up to its `turn/completed`. */
  runTurn(text: string): Promise<ServerNotification[]>;
  serverRequests: ServerRequest[];
  close(): Promise<void>;
}

export interface AgentOptions {
  baseUrl: string;
  cwd: string;
  model?: string;
  requestMaxRetries?: number;
  streamMaxRetries?: number;
  streamIdleTimeoutMs?: number;
  sendRequest?: HostRequestSender;
  overrides?: TurnOverrides;
  /** Home of global AGENTS.md and skills; absent = no project context is read. */
  weftHome?: string;
  /** Remembered rules; default: an empty store in a fresh temp folder. */
  rules?: RuleStore;
  /** Extra config.toml keys (as parsed TOML values). */
  config?: Record<string, unknown>;
  /** Extra variables of the environment Weft runs in (what `env_vars` and `*_env_var` keys read). */
  env?: Record<string, string>;
  /** What the session starts from (a saved thread's history and turns). */
  initial?: SessionOptions['initial'];
}

export function mockProvider(baseUrl: string, opts: Partial<ResolvedProvider> = {}): ResolvedProvider {
  return {
    id: 'mock',
    name: 'Mock',
    baseUrl,
    wireApi: 'responses',
    apiKey: 'test-key',
    envKey: 'MOCK_API_KEY',
    envKeyInstructions: null,
    headers: {},
    queryParams: {},
    requestMaxRetries: 4,
    streamMaxRetries: 5,
    streamIdleTimeoutMs: 300_000,
    ...opts,
  };
}

export function startAgent(opts: AgentOptions): AgentHarness {
  // Unless a test says otherwise, commands run unsandboxed and nothing asks: the loop is under test.
  const config = weftConfigSchema.parse({
    model: opts.model ?? 'mock-model',
    model_provider: 'mock',
    approval_policy: 'never',
    sandbox_mode: 'danger-full-access',
    ...opts.config,
  });
  const serverRequests: ServerRequest[] = [];
  const sendRequest: HostRequestSender = async (request, signal) => {
    serverRequests.push(request);
    if (opts.sendRequest) return opts.sendRequest(request, signal);
    return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'decline' };
  };
  const session = createSession({
    config,
    provider: mockProvider(opts.baseUrl, {
      requestMaxRetries: opts.requestMaxRetries ?? 4,
      streamMaxRetries: opts.streamMaxRetries ?? 5,
      streamIdleTimeoutMs: opts.streamIdleTimeoutMs ?? 300_000,
    }),
    cwd: opts.cwd,
    sendRequest,
    overrides: opts.overrides,
    initial: opts.initial,
    weftHome: opts.weftHome,
    rules: opts.rules ?? new RuleStore(join(tmpdir(), `weft-test-rules-${randomUUID()}`)),
    env: {
      SHELL: '/bin/bash',
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? '/root',
      TZ: 'Europe/Paris',
      ...opts.env,
    },
  });
  const events: ServerNotification[] = [];
  session.subscribe((n) => events.push(n));
  const subscribe = (listener: (n: ServerNotification) => void): (() => void) => session.subscribe(listener);
  return {
    session,
    events,
    subscribe,
    serverRequests,
    next: (method, match) =>
      waitFor(subscribe, (n): n is never => n.method === method && (!match || match(n as never)), {
        label: method,
      }) as never,
    runTurn: async (text) => {
      const done = collectUntil(subscribe, (n) => n.method === 'turn/completed', { label: 'turn/completed' });
      await session.startTurn([{ type: 'text', text }]);
      return done;
    },
    close: () => session.shutdown(),
  };
}

/** The notifications of one method, with their params. */
export function paramsOf<M extends ServerNotificationMethod>(
  events: ServerNotification[],
  method: M,
): NotificationParams<M>[] {
  const out: NotificationParams<M>[] = [];
  // Checking `method` is what makes this cast hold.
  for (const n of events) if (n.method === method) out.push(n.params as NotificationParams<M>);
  return out;
}
