// Tokens a provider wrote to its prompt cache (Anthropic-style `cache_creation_input_tokens` or OpenAI's
// `prompt_tokens_details.cache_write_tokens` in a Chat Completions usage chunk, and the Responses API's
// `input_tokens_details.cache_write_tokens`): carried as Codex 0.169's optional `cacheWriteInputTokens` in the token usage,
// priced at `cache_write_input` (`[model_prices]`), and counted per day, through `weft exec --json` and
// `weft usage` against the real binary.
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  chatFinish,
  chatRole,
  chatText,
  chatUsage,
  startMockChatServer,
  type MockChatServer,
} from '../support/mock-chat-server';
import { startMockResponsesServer } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const today = (): string => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** The `thread/tokenUsage/updated` params that `weft exec --json` printed. */
function tokenUsageUpdate(stdout: string): Record<string, unknown> & { tokenUsage?: { last: unknown } } {
  const update = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { method: string; params: Record<string, unknown> })
    .find((n) => n.method === 'thread/tokenUsage/updated')?.params;
  if (update === undefined) throw new Error(`no thread/tokenUsage/updated in:\n${stdout}`);
  return update;
}

/** 1,000 prompt tokens: 200 read from the cache, 300 written to it, 500 neither; 100 out. */
const USAGE = {
  totalTokens: 1100,
  inputTokens: 1000,
  cachedInputTokens: 200,
  cacheWriteInputTokens: 300,
  outputTokens: 100,
  reasoningOutputTokens: 0,
};

let server: MockChatServer;
let ws: TempWorkspace;
let home: WeftHome;

beforeEach(async () => {
  server = await startMockChatServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\n' });
  home = await makeWeftHome(
    `model = "cache-model"\nmodel_provider = "local"\n\n[model_providers.local]\nname = "Local"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "chat"\nrequest_max_retries = 0\n\n[model_prices."cache-model"]\ninput = 2\ncached_input = 0.5\ncache_write_input = 2.5\noutput = 8\n`,
  );
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

it('carries, prices and counts the tokens a provider wrote to its cache', async () => {
  // 1,000 prompt tokens: 200 read from the cache, 300 written to it, 500 neither.
  server.enqueue({
    kind: 'sse',
    chunks: [
      chatRole(),
      chatText('Done.'),
      chatFinish('stop'),
      chatUsage({ prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 200, cache_creation_input_tokens: 300 }),
    ],
  });
  const run = await runWeftCli(['exec', '--json', 'look'], { cwd: ws.dir, weftHome: home.dir });
  const update = tokenUsageUpdate(run.stdout);
  const usage = USAGE;
  const price = { input: 2, cachedInput: 0.5, cacheWriteInput: 2.5, output: 8, source: 'config' };
  // 500 × 2 + 200 × 0.5 + 300 × 2.5 + 100 × 8 = 2,650 micro-dollars.
  const cost = { usdMicros: 2650, unpricedModels: [] };
  // No warning about the price table, only the thread's id.
  expect({ code: run.code, stderr: run.stderr }).toEqual({
    code: 0,
    stderr: `weft: thread ${String(update['threadId'])}\n`,
  });
  expect(update).toEqual({
    threadId: expect.any(String),
    turnId: expect.any(String),
    tokenUsage: { total: usage, last: usage, modelContextWindow: null },
    weftCost: {
      model: 'cache-model',
      price,
      turn: { usage, cost },
      thread: { cost, byModel: [{ model: 'cache-model', usage, price, cost }] },
    },
  });

  // Read back from the rollout, per day.
  const daily = await runWeftCli(['usage', '--json'], { cwd: ws.dir, weftHome: home.dir });
  expect(daily.code).toBe(0);
  const days = (JSON.parse(daily.stdout) as { days: { usage: unknown; cost: unknown }[] }).days;
  expect(days.map((d) => ({ usage: d.usage, cost: d.cost }))).toEqual([{ usage, cost }]);
});

it('reads cache writes from a Responses usage and shows them in a column of `weft usage`', async () => {
  const responses = await startMockResponsesServer();
  try {
    const responsesHome = await makeWeftHome(
      `model = "cache-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "Mock"\nbase_url = "${responses.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n\n[model_prices."cache-model"]\ninput = 2\ncached_input = 0.5\ncache_write_input = 2.5\noutput = 8\n`,
    );
    try {
      responses.enqueue({
        kind: 'sse',
        events: [
          evCreated(),
          evAssistantMessage('Done.'),
          evCompleted('resp_mock', {
            input_tokens: 1000,
            cached_tokens: 200,
            cache_write_tokens: 300,
            output_tokens: 100,
          }),
        ],
      });
      const run = await runWeftCli(['exec', '--json', 'look'], { cwd: ws.dir, weftHome: responsesHome.dir });
      expect(run.code).toBe(0);
      expect(tokenUsageUpdate(run.stdout).tokenUsage?.last).toEqual(USAGE);
      const table = await runWeftCli(['usage', '--days', '1'], { cwd: ws.dir, weftHome: responsesHome.dir });
      expect(table.code).toBe(0);
      // 500 × 2 + 200 × 0.5 + 300 × 2.5 + 100 × 8 = 2,650 micro-dollars.
      expect(table.stdout.split('\n').slice(0, 3)).toEqual([
        'day         input  cached  cache write  output  reasoning  cost',
        `${today()}  1,000     200          300     100          0  $0.0027`,
        'total       1,000     200          300     100          0  $0.0027',
      ]);
    } finally {
      await responsesHome.cleanup();
    }
  } finally {
    await responses.close();
  }
});

it('reads OpenAI’s cache_write_tokens of a Chat Completions usage', async () => {
  server.enqueue({
    kind: 'sse',
    chunks: [
      chatRole(),
      chatText('Done.'),
      chatFinish('stop'),
      chatUsage({ prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 200, cache_write_tokens: 300 }),
    ],
  });
  const run = await runWeftCli(['exec', '--json', 'look'], { cwd: ws.dir, weftHome: home.dir });
  expect(run.code).toBe(0);
  expect(tokenUsageUpdate(run.stdout).tokenUsage?.last).toEqual(USAGE);
});
