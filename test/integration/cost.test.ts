// Tokens and their cost: per turn and per thread in `thread/tokenUsage/updated` (`weftCost`, over the
// protocol and in `weft exec --json`), priced from `[model_prices]`; per day in `weft/usage/daily` and
// `weft usage`, read from the rollouts so that it survives a restart and never counts a fork's copy twice.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, type UsageInput } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { runWeftCli, type WeftRun } from '../support/weft-cli';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const cleanups: (() => Promise<void>)[] = [];

const PRICES = '[model_prices."mock-model"]\ninput = 2\ncached_input = 0.5\noutput = 8\n';

async function configure(extra: string, model = 'mock-model'): Promise<void> {
  home = await makeWeftHome(
    `model = "${model}"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n\n${extra}`,
  );
}

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\n' });
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const FIRST: UsageInput = { input_tokens: 1000, cached_tokens: 200, output_tokens: 100, reasoning_tokens: 30 };
const SECOND: UsageInput = { input_tokens: 1500, cached_tokens: 1000, output_tokens: 50, reasoning_tokens: 0 };

/** A turn of two requests: a command, then the answer; each reports its usage. */
function twoRequestTurn(): void {
  server.enqueueMany([
    {
      kind: 'sse',
      events: [
        evCreated('r1'),
        evFunctionCall('c1', 'exec_command', { cmd: 'cat notes.txt' }),
        evCompleted('r1', FIRST),
      ],
    },
    { kind: 'sse', events: [evCreated('r2'), evAssistantMessage('Done.'), evCompleted('r2', SECOND)] },
  ]);
}

const breakdown = (u: UsageInput) => ({
  totalTokens: (u.input_tokens ?? 0) + (u.output_tokens ?? 0),
  inputTokens: u.input_tokens ?? 0,
  cachedInputTokens: u.cached_tokens ?? 0,
  outputTokens: u.output_tokens ?? 0,
  reasoningOutputTokens: u.reasoning_tokens ?? 0,
});
const sum = (a: ReturnType<typeof breakdown>, b: ReturnType<typeof breakdown>) => ({
  totalTokens: a.totalTokens + b.totalTokens,
  inputTokens: a.inputTokens + b.inputTokens,
  cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
});

// At input 2, cached input 0.5, output 8 USD per million tokens, in micro-dollars:
// FIRST: 800 × 2 + 200 × 0.5 + 100 × 8 = 2500; SECOND: 500 × 2 + 1000 × 0.5 + 50 × 8 = 1900.
const PRICE = { input: 2, cachedInput: 0.5, output: 8, source: 'config' };
const TURN_USAGE = sum(breakdown(FIRST), breakdown(SECOND));

function runWeft(args: string[]): Promise<WeftRun> {
  return runWeftCli(args, { cwd: ws.dir, weftHome: home.dir });
}

function appServer(): StdioRpcClient {
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  cleanups.push(() => client.close());
  return client;
}

const today = (): string => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

describe('cost', () => {
  it('weft exec --json carries each request’s cost, the turn’s so far and the thread’s', async () => {
    await configure(PRICES);
    twoRequestTurn();
    const run = await runWeft(['exec', '--json', '-s', 'workspace-write', 'look']);
    expect(run.code).toBe(0);
    const updates = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { method: string; params: Record<string, unknown> })
      .filter((n) => n.method === 'thread/tokenUsage/updated')
      .map((n) => n.params);
    expect(updates).toHaveLength(2);
    const turnId = updates[0]?.['turnId'];
    expect(updates[1]).toEqual({
      threadId: updates[0]?.['threadId'],
      turnId,
      tokenUsage: { total: TURN_USAGE, last: breakdown(SECOND), modelContextWindow: null },
      weftCost: {
        model: 'mock-model',
        price: PRICE,
        turn: { usage: TURN_USAGE, cost: { usdMicros: 4400, unpricedModels: [] } },
        thread: {
          cost: { usdMicros: 4400, unpricedModels: [] },
          byModel: [
            {
              model: 'mock-model',
              usage: TURN_USAGE,
              price: PRICE,
              cost: { usdMicros: 4400, unpricedModels: [] },
            },
          ],
        },
      },
    });
    expect(updates[0]?.['weftCost']).toMatchObject({ turn: { cost: { usdMicros: 2500 } } });
  });

  it('says "unknown price" for a model without one, and prices built-in models by default', async () => {
    await configure('', 'my-local-model');
    server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('Hi.'), evCompleted('r', FIRST)] });
    const run = await runWeft(['exec', '--json', 'hi']);
    expect(run.code).toBe(0);
    const update = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { method: string; params: { weftCost?: unknown } })
      .find((n) => n.method === 'thread/tokenUsage/updated');
    const unknown = { usdMicros: 0, unpricedModels: ['my-local-model'] };
    expect(update?.params.weftCost).toEqual({
      model: 'my-local-model',
      price: null,
      turn: { usage: breakdown(FIRST), cost: unknown },
      thread: {
        cost: unknown,
        byModel: [{ model: 'my-local-model', usage: breakdown(FIRST), price: null, cost: unknown }],
      },
    });
    await home.cleanup();
    await configure('', 'gpt-5.1-codex');
    server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('Hi.'), evCompleted('r', FIRST)] });
    const builtIn = await runWeft(['exec', '--json', 'hi']);
    expect(builtIn.stdout).toContain(
      '"price":{"input":1.25,"cachedInput":0.125,"output":10,"source":"default"},"turn":{"usage":',
    );
    // 800 × 1.25 + 200 × 0.125 + 100 × 10 = 2025 micro-dollars.
    expect(builtIn.stdout).toContain('"cost":{"usdMicros":2025,"unpricedModels":[]}');
  });

  it('refuses a price table that is wrong, saying where and why', async () => {
    await configure('[model_prices."mock-model"]\ninput = -1\noutput = "cheap"\n');
    const run = await runWeft(['exec', 'hi']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `weft: ${home.dir}/config.toml:12:1: \`model_prices.mock-model.input\` must be at least 0 (got -1)\n` +
        `${home.dir}/config.toml:13:1: \`model_prices.mock-model.output\` must be a number (got "cheap")\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('over the protocol: the thread’s cost after a restart, and the day’s totals without a fork’s copy', async () => {
    await configure(PRICES);
    const first = appServer();
    await first.initialize();
    const started = await first.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    twoRequestTurn();
    await first.request('turn/start', { threadId, input: [{ type: 'text', text: 'look', text_elements: [] }] });
    await first.notification('turn/completed', (p) => p['threadId'] === threadId);
    const day = {
      date: today(),
      usage: TURN_USAGE,
      cost: { usdMicros: 4400, unpricedModels: [] },
      byModel: [
        { model: 'mock-model', usage: TURN_USAGE, price: PRICE, cost: { usdMicros: 4400, unpricedModels: [] } },
      ],
      threads: 1,
    };
    const daily = await first.request('weft/usage/daily', {});
    expect(daily).toEqual({
      days: [day],
      total: { usage: TURN_USAGE, cost: day.cost },
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    await first.close();

    // A new server: the resume tells the thread's usage and cost (Codex sends the usage after a resume).
    const second = appServer();
    await second.initialize();
    await second.request('thread/resume', { threadId });
    const resumed = await second.notification('thread/tokenUsage/updated', (p) => p['threadId'] === threadId);
    expect(resumed).toEqual({
      threadId,
      turnId: expect.any(String),
      tokenUsage: { total: TURN_USAGE, last: breakdown(SECOND), modelContextWindow: null },
      weftCost: {
        model: 'mock-model',
        price: PRICE,
        turn: null,
        thread: { cost: day.cost, byModel: day.byModel },
      },
    });
    expect(await second.request('weft/usage/daily', {})).toEqual(daily);

    // A fork copies the thread's lines; one more request in it adds only its own tokens to the day.
    const forked = await second.request<{ thread: { id: string } }>('thread/fork', { threadId });
    const forkId = forked.thread.id;
    server.enqueue({ kind: 'sse', events: [evCreated('r3'), evAssistantMessage('Fork.'), evCompleted('r3', FIRST)] });
    await second.request('turn/start', {
      threadId: forkId,
      input: [{ type: 'text', text: 'more', text_elements: [] }],
    });
    const forkUsage = await second.notification('thread/tokenUsage/updated', (p) => p['threadId'] === forkId);
    // The fork's own thread total goes on from its parent's, as in Codex.
    expect(forkUsage['weftCost']).toMatchObject({
      turn: { cost: { usdMicros: 2500 } },
      thread: { cost: { usdMicros: 6900, unpricedModels: [] } },
    });
    await second.notification('turn/completed', (p) => p['threadId'] === forkId);
    const withFork = await second.request<{ days: { usage: unknown; cost: unknown; threads: number }[] }>(
      'weft/usage/daily',
      { days: 1 },
    );
    expect(withFork.days).toHaveLength(1);
    expect(withFork.days[0]).toMatchObject({
      usage: sum(TURN_USAGE, breakdown(FIRST)),
      cost: { usdMicros: 6900, unpricedModels: [] },
      threads: 2,
    });

    // The CLI prints the same numbers.
    const cli = await runWeft(['usage', '--days', '3']);
    expect(cli.code).toBe(0);
    expect(cli.stdout.split('\n').slice(0, 3)).toEqual([
      'day         input  cached  cache write  output  reasoning  cost',
      `${today()}  3,500   1,400            0     250         60  $0.0069`,
      'total       3,500   1,400            0     250         60  $0.0069',
    ]);
  });

  it('counts and prices the request that compacts a thread; the context meter then shows the summary only', async () => {
    await configure(PRICES);
    const client = appServer();
    await client.initialize();
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    twoRequestTurn();
    await client.request('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'look', text_elements: [] }],
    });
    await client.notification('turn/completed', (p) => p['threadId'] === thread.id);
    const SUMMARY: UsageInput = { input_tokens: 3000, cached_tokens: 0, output_tokens: 200, reasoning_tokens: 0 };
    server.enqueue({
      kind: 'sse',
      events: [evCreated('r3'), evAssistantMessage('The work so far: notes.txt was read.'), evCompleted('r3', SUMMARY)],
    });
    await client.request('thread/compact/start', { threadId: thread.id });
    const counted = await client.notification(
      'thread/tokenUsage/updated',
      (p) =>
        p['threadId'] === thread.id && p['turnId'] !== undefined && JSON.stringify(p).includes('"inputTokens":5500'),
    );
    await client.notification('turn/completed', (p) => p['threadId'] === thread.id);
    // 3,000 × 2 + 200 × 8 = 7,600 micro-dollars, on top of the first turn's 4,400.
    const all = sum(TURN_USAGE, breakdown(SUMMARY));
    expect(counted).toMatchObject({
      tokenUsage: { total: all, last: breakdown({}), modelContextWindow: null },
      weftCost: {
        turn: { usage: breakdown(SUMMARY), cost: { usdMicros: 7600, unpricedModels: [] } },
        thread: { cost: { usdMicros: 12000, unpricedModels: [] } },
      },
    });
    const daily = await client.request<{ total: unknown }>('weft/usage/daily', {});
    expect(daily.total).toEqual({ usage: all, cost: { usdMicros: 12000, unpricedModels: [] } });
  });
});
