import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACTION_PROMPT, SUMMARY_PREFIX } from '../../src-main/context/compaction';
import { paramsOf, startAgent, type AgentHarness } from '../support/agent';
import {
  startMockResponsesServer,
  type MockResponsesServer,
  type RecordedRequest,
} from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace();
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
});

type Input = { role?: string; type: string; content?: { text?: string }[] }[];
const inputOf = (r: RecordedRequest | undefined): Input => (r?.body as { input: Input }).input;
const texts = (r: RecordedRequest | undefined): string[] =>
  inputOf(r).map((i) => i.content?.map((c) => c.text ?? '').join('') ?? '');
const isCompaction = (r: RecordedRequest | undefined): boolean => texts(r).at(-1) === COMPACTION_PROMPT;

const answer = (text: string, total = 10) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evOutputTextDelta(text),
    evAssistantMessage(text),
    evCompleted('r', { input_tokens: total - 5, output_tokens: 5 }),
  ],
});
const summary = (text: string, memory: object) => answer(`## Goal\n${text}\nWORKING MEMORY\n${JSON.stringify(memory)}`);

describe('compaction', () => {
  it('compacts before a turn once reported usage reaches the limit, keeping recent user messages', async () => {
    server.enqueueMany([
      answer('big answer', 950),
      summary('Build the parser', { decisions: ['use a hand-written lexer'] }),
      answer('after compaction'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { model_auto_compact_token_limit: 900 } });
    await agent.runTurn('please build a parser');
    const events = await agent.runTurn('continue');
    expect(isCompaction(server.requests[1])).toBe(true);
    expect((server.requests[1]?.body as { tools: unknown[] }).tools).toEqual([]);
    const after = texts(server.requests[2]);
    expect(after[0]).toBe('please build a parser');
    expect(after[1]).toBe(`${SUMMARY_PREFIX}\n\n## Goal\nBuild the parser`);
    expect(after[2]).toContain('- use a hand-written lexer');
    expect(after.at(-1)).toBe('continue');
    expect(after.some((t) => t.includes('<permissions instructions>'))).toBe(true);
    expect(after.some((t) => t === 'big answer')).toBe(false);
    const items = paramsOf(events, 'item/completed').map((p) => p.item.type);
    // The user's message is recorded first (it is on disk once turn/start is answered), then compacted
    // around: the model still sees it last, after the summary and the context.
    expect(items).toEqual(['userMessage', 'contextCompaction', 'agentMessage']);
    expect(paramsOf(events, 'warning').map((w) => w.message)).toEqual([
      expect.stringMatching(/^Heads up: this thread was compacted/),
    ]);
  });

  it('compacts mid-turn and continues the same turn', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: 'echo tool-output' }),
          evCompleted('r', { input_tokens: 990, output_tokens: 10 }),
        ],
      },
      summary('Ran the tool', { files: ['out.txt'] }),
      answer('finished'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { model_auto_compact_token_limit: 500 } });
    const events = await agent.runTurn('run the tool');
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
    expect(isCompaction(server.requests[1])).toBe(true);
    // The summary request saw the tool output; the continuing request carries the summary instead.
    expect(JSON.stringify(inputOf(server.requests[1]).find((i) => i.type === 'function_call_output'))).toContain(
      'tool-output\\n',
    );
    const continued = texts(server.requests[2]);
    expect(continued.some((t) => t.startsWith(SUMMARY_PREFIX))).toBe(true);
    expect(inputOf(server.requests[2]).some((i) => i.type === 'function_call_output')).toBe(false);
  });

  it('keeps the working memory verbatim through three compactions', async () => {
    server.enqueueMany([
      answer('a1', 1000),
      summary('s1', { decisions: ['D1'], failed: ['F1'] }),
      answer('a2', 1000),
      summary('s2', { decisions: ['D2'], files: ['K2'] }),
      answer('a3', 1000),
      summary('s3', { failed: ['F3'] }),
      answer('a4'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { model_auto_compact_token_limit: 900 } });
    for (const t of ['one', 'two', 'three', 'four']) await agent.runTurn(t);
    const last = texts(server.requests.at(-1)).find((t) => t.startsWith('<working_memory>'));
    expect(last).toBe(
      '<working_memory>\nDurable facts of this thread, kept verbatim across compactions:\nDecisions:\n- D1\n- D2\nTried and failed:\n- F1\n- F3\nKey files:\n- K2\n</working_memory>',
    );
    expect(server.requests.filter(isCompaction)).toHaveLength(3);
  });

  it('compacts and retries once when the model says the request is too long, then gives up clearly', async () => {
    const tooLong = {
      kind: 'http-error' as const,
      status: 400,
      body: {
        error: {
          message: 'Your input exceeds the context window of this model.',
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    };
    server.enqueueMany([tooLong, summary('s', {}), answer('fits now')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const ok = await agent.runTurn('huge');
    expect(paramsOf(ok, 'turn/completed')[0]?.turn.status).toBe('completed');
    server.enqueueMany([tooLong, summary('s', {}), tooLong]);
    const failed = await agent.runTurn('still huge');
    const turn = paramsOf(failed, 'turn/completed')[0]?.turn;
    expect(turn?.status).toBe('failed');
    expect(turn?.error).toMatchObject({
      codexErrorInfo: 'contextWindowExceeded',
      message: expect.stringContaining('context window exceeded'),
    });
  });

  it('compacts on request as a turn of its own', async () => {
    server.enqueueMany([answer('hello'), summary('manual', {})]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('hi');
    const done = agent.next('turn/completed');
    await agent.session.compact();
    expect((await done).params.turn.status).toBe('completed');
    expect(isCompaction(server.requests[1])).toBe(true);
    expect(
      agent.session.history
        .map((i) =>
          'content' in i && Array.isArray(i.content) ? String((i.content[0] as { text?: string }).text) : '',
        )
        .at(-1),
    ).toContain('## Goal\nmanual');
  });
});
