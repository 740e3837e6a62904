/**
 * Weft as an Agent Client Protocol agent (for editors such as Zed), over the official SDK. One ACP
 * session is one Weft thread (the session id is the thread id): `session/new` starts a thread with the
 * client's MCP servers in its config, `session/load` resumes one and replays it, `session/prompt` runs
 * a turn and streams it as `session/update`s, approvals become `session/request_permission`, questions
 * become `elicitation/create` when the client offers it, `session/cancel` interrupts the turn, and
 * `session/set_mode` switches between Weft's presets. A sub-agent's approvals and questions are asked in
 * the session of its parent, labelled with the sub-agent.
 */
import {
  agent,
  methods,
  RequestError,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { ServerNotification, ServerRequest } from '../../../src-preload/protocol';
import { errorMessage } from '../../util/errors';
import { VERSION } from '../../version';
import { followTurn } from '../follow-turn';
import { HostRequestError, type HostClient } from '../host-client';
import { ElicitationAnswer, questionsAnswer, questionsForm } from '../questions';
import { trackLineage } from '../sub-agents';
import { mcpServerOverrides } from './mcp-servers';
import { isModeId, modeById, modeOf, modeState, type ModeId } from './modes';
import { commandDecisionOf, commandPermission, patchDecisionOf, patchPermission } from './permissions';
import { promptToInput } from './prompt-input';
import { isSubAgentCall, subAgentUpdates, UpdateMapper } from './updates';

/** ACP's error for an unknown session. */
const RESOURCE_NOT_FOUND = -32002;

export interface AcpAgentOptions {
  client: HostClient;
  log: (line: string) => void;
}

class AcpSession {
  readonly mapper: UpdateMapper;
  /** Aborted by `session/cancel`; null while no prompt runs. */
  running: AbortController | null = null;
  /** A mode chosen with `session/set_mode`, applied by the next turn. */
  pendingMode: ModeId | null = null;
  /** Updates are sent one after the other, in the order Weft produced them. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    cwd: string,
    public mode: ModeId,
  ) {
    this.mapper = new UpdateMapper(cwd);
  }

  /** Runs `task` after everything queued before it; the returned promise settles with it. */
  enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.queue.then(task);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

export function createAcpAgent(options: AcpAgentOptions): AgentApp {
  const { client, log } = options;
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};
  let peer: AgentContext | null = null;

  const send = (session: AcpSession, updates: readonly SessionUpdate[]): Promise<void> =>
    updates.reduce<Promise<void>>(
      (done, update) => done.then(() => peer?.notify(methods.client.session.update, { sessionId: session.id, update })),
      Promise.resolve(),
    );

  const onNotification = (session: AcpSession) => (n: ServerNotification) =>
    session.enqueue(async () => {
      await send(session, await session.mapper.map(n));
    });

  const lineage = trackLineage(client, (line) => log(`weft acp: ${line}`));

  // A sub-agent's commands and patches are shown in the session of the nearest parent one shows, as that
  // thread's own are: a tool call (with its output, or its diff), labelled with the sub-agent. The chain
  // keeps them in the order they came; a request waits for it, so the client is shown the tool call before
  // it is asked about it.
  let subAgentCalls: Promise<void> = Promise.resolve();
  client.onNotification((n) => {
    if (!isSubAgentCall(n) || sessions.has(n.params.threadId)) return;
    const threadId = n.params.threadId;
    subAgentCalls = subAgentCalls
      .then(async () => {
        const asking = await lineage.askingThread(threadId, (id) => sessions.has(id));
        const session = asking === null ? undefined : sessions.get(asking.threadId);
        const from = asking?.subAgent ?? null;
        if (session === undefined || from === null) return;
        await session.enqueue(async () => send(session, subAgentUpdates(await session.mapper.map(n), from)));
      })
      .catch((error: unknown) => log(`weft acp: could not show a sub-agent's tool call: ${errorMessage(error)}`));
  });

  client.setServerRequestHandler(async (request: ServerRequest) => {
    // A sub-agent's request is asked in the session of the nearest of its parents that one shows.
    const asking = await lineage.askingThread(request.params.threadId, (id) => sessions.has(id));
    const session = asking === null ? undefined : sessions.get(asking.threadId);
    if (!asking || !session || !peer) {
      log(`weft acp: ${request.method} for thread ${request.params.threadId}, which no session shows; refusing`);
      return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'decline' };
    }
    // The client has seen the tool call this request is about before it is asked.
    await subAgentCalls;
    await session.enqueue(async () => undefined);
    const from = asking.subAgent;
    switch (request.method) {
      case 'item/commandExecution/requestApproval': {
        const answer = await peer.request(
          methods.client.session.requestPermission,
          commandPermission(session.id, request.params, from),
        );
        return { decision: commandDecisionOf(answer.outcome, request.params) };
      }
      case 'item/fileChange/requestApproval': {
        const answer = await peer.request(
          methods.client.session.requestPermission,
          patchPermission(session.id, request.params, from),
        );
        return { decision: patchDecisionOf(answer.outcome) };
      }
      case 'item/tool/requestUserInput': {
        if (!capabilities.elicitation?.form) return { answers: {} };
        const form = questionsForm(request.params, from);
        const answer = await peer.request(methods.client.elicitation.create, {
          mode: 'form',
          sessionId: session.id,
          toolCallId: request.params.itemId,
          message: form.message,
          requestedSchema: form.requestedSchema,
        });
        return questionsAnswer(request.params, ElicitationAnswer.parse(answer));
      }
    }
  });

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session)
      throw new RequestError(
        RESOURCE_NOT_FOUND,
        `No session ${sessionId}: create one with session/new or load it with session/load.`,
      );
    return session;
  };

  return agent({ name: 'weft' })
    .onConnect((connection) => {
      peer = connection.client;
    })
    .onRequest(methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
        agentInfo: { name: 'weft', title: 'Weft', version: VERSION },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.authenticate, () => ({}))
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const started = await core(() =>
        client.request('thread/start', { cwd: params.cwd, config: mcpServerOverrides(params.mcpServers) }),
      );
      const session = new AcpSession(started.thread.id, started.cwd, modeOf(started.sandbox));
      sessions.set(session.id, session);
      return { sessionId: session.id, modes: modeState(session.mode) };
    })
    .onRequest(methods.agent.session.load, async ({ params }) => {
      const resumed = await core(
        () =>
          client.request('thread/resume', {
            threadId: params.sessionId,
            cwd: params.cwd,
            config: mcpServerOverrides(params.mcpServers),
          }),
        RESOURCE_NOT_FOUND,
      );
      const session = new AcpSession(resumed.thread.id, resumed.cwd, modeOf(resumed.sandbox));
      sessions.set(session.id, session);
      for (const turn of resumed.thread.turns) await send(session, await session.mapper.replay(turn));
      return { modes: modeState(session.mode) };
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isModeId(params.modeId))
        throw RequestError.invalidParams(
          undefined,
          `Unknown mode "${params.modeId}"; the modes are read-only, auto and full-access.`,
        );
      session.mode = params.modeId;
      session.pendingMode = params.modeId;
      await session.enqueue(() =>
        send(session, [{ sessionUpdate: 'current_mode_update', currentModeId: params.modeId }]),
      );
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (session.running)
        throw RequestError.invalidRequest(
          undefined,
          'A prompt is already running in this session; wait for it or cancel it.',
        );
      const controller = new AbortController();
      session.running = controller;
      const mode = session.pendingMode === null ? null : modeById(session.pendingMode);
      session.pendingMode = null;
      try {
        const turn = await core(() =>
          followTurn(client, {
            threadId: session.id,
            input: promptToInput(params.prompt),
            overrides: mode
              ? { approvalPolicy: mode.approvalPolicy, sandboxPolicy: sandboxPolicyOf(mode.sandbox) }
              : undefined,
            onNotification: onNotification(session),
            signal: controller.signal,
          }),
        );
        if (turn.status === 'failed')
          throw RequestError.internalError(undefined, turn.error?.message ?? 'The turn failed.');
        return { stopReason: turn.status === 'interrupted' || controller.signal.aborted ? 'cancelled' : 'end_turn' };
      } finally {
        session.running = null;
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort();
    });
}

/** A call into the core; its errors become ACP errors a client can show. */
async function core<T>(call: () => Promise<T>, notFoundCode?: number): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    if (error instanceof HostRequestError && error.code === -32602) {
      if (notFoundCode !== undefined && /not found|no thread|unknown thread/i.test(error.message))
        throw new RequestError(notFoundCode, error.message);
      throw RequestError.invalidParams(undefined, error.message);
    }
    throw RequestError.internalError(undefined, errorMessage(error));
  }
}

function sandboxPolicyOf(mode: 'read-only' | 'workspace-write' | 'danger-full-access') {
  switch (mode) {
    case 'read-only':
      return { type: 'readOnly' as const };
    case 'workspace-write':
      return { type: 'workspaceWrite' as const };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' as const };
  }
}
