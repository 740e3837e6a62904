// A fake `window.weft` (the Electron bridge) for driving the built renderer in a browser without an agent:
// it answers the protocol requests from canned data and lets the page script emit notifications and
// server requests. Injected with Playwright's addInitScript before the app loads; configured through
// `window.__weftFake = { scenario, cwd, items }` set by an earlier init script. Used by bench/ui.bench.ts
// (scenario "bench": a thread of `items` items) and for design screenshots (scenarios "demo", "review").
/* global window */
(() => {
  const config = window.__weftFake || { scenario: 'demo' };
  const cwd = config.cwd || '/home/ada/acme-web';
  const now = Math.floor(Date.now() / 1000);
  const notificationListeners = new Set();
  const requestListeners = new Set();
  const heldRequests = [];
  const responses = [];
  let counter = 0;
  const id = (prefix) => `${prefix}_${(++counter).toString(36)}`;

  const thread = (threadId, extra) => ({
    id: threadId,
    forkedFromId: null,
    preview: '',
    ephemeral: false,
    modelProvider: 'openai',
    createdAt: now - 7200,
    updatedAt: now - 120,
    status: { type: 'notLoaded' },
    path: `/home/ada/.weft/sessions/${threadId}.jsonl`,
    cwd,
    cliVersion: '0.1.0',
    source: 'appServer',
    gitInfo: null,
    name: null,
    turns: [],
    ...extra,
  });
  const turn = (turnId, items, extra) => ({
    id: turnId,
    items,
    status: 'completed',
    error: null,
    startedAt: now - 600,
    completedAt: now - 540,
    durationMs: 61_400,
    ...extra,
  });
  const user = (text) => ({ type: 'userMessage', id: id('u'), content: [{ type: 'text', text }] });
  const agent = (text, phase = 'final_answer') => ({ type: 'agentMessage', id: id('m'), text, phase });
  const reasoning = (summary) => ({ type: 'reasoning', id: id('r'), summary, content: [] });
  const command = (cmd, output, exitCode, durationMs, extra) => ({
    type: 'commandExecution',
    id: id('c'),
    command: cmd,
    cwd,
    processId: null,
    status: exitCode === 0 ? 'completed' : 'failed',
    commandActions: [],
    aggregatedOutput: output,
    exitCode,
    durationMs,
    ...extra,
  });

  const TEST_DIFF = [
    '--- a/src/checkout/checkout.test.ts',
    '+++ b/src/checkout/checkout.test.ts',
    '@@ -18,9 +18,10 @@ describe("checkout", () => {',
    '   it("charges the card once", async () => {',
    '     const cart = await seedCart(["sku_1", "sku_2"]);',
    '     render(<Checkout cart={cart} />);',
    '-    await user.click(screen.getByRole("button", { name: "Pay" }));',
    '-    expect(api.charge).toHaveBeenCalledTimes(1);',
    '+    await user.click(screen.getByRole("button", { name: "Pay" }));',
    '+    await screen.findByText("Payment received");',
    '+    expect(api.charge).toHaveBeenCalledTimes(1);',
    '   });',
    ' ',
    '   it("shows the total with tax", async () => {',
    '',
  ].join('\n');
  const CLIENT_DIFF = [
    '--- a/src/checkout/api.ts',
    '+++ b/src/checkout/api.ts',
    '@@ -1,6 +1,8 @@',
    ' import { http } from "../http";',
    ' ',
    '-const RETRY_DELAY_MS = 250;',
    '+/** Delay before the one retry of a failed charge; override with CHECKOUT_RETRY_MS. */',
    '+export const RETRY_DELAY_MS = Number(process.env.CHECKOUT_RETRY_MS ?? 250);',
    '+',
    ' export async function charge(cartId: string): Promise<Receipt> {',
    '   try {',
    '     return await http.post(`/carts/${cartId}/charge`);',
    '@@ -16,5 +18,5 @@ export async function chargeWithRetry(cartId: string): Promise<Receipt> {',
    '   } catch (error) {',
    '     if (!isRetryable(error)) throw error;',
    '-    await sleep(RETRY_DELAY_MS);',
    '+    await sleep(RETRY_DELAY_MS * 2);',
    '     return http.post(`/carts/${cartId}/charge`);',
    '   }',
    '',
  ].join('\n');
  const API_ORIGINAL = [
    'import { http } from "../http";',
    '',
    'const RETRY_DELAY_MS = 250;',
    'export async function charge(cartId: string): Promise<Receipt> {',
    '  try {',
    '    return await http.post(`/carts/${cartId}/charge`);',
    '  } finally {',
    '    metrics.count("checkout.charge");',
    '  }',
    '}',
    '',
    '/** Charges again once when the first attempt failed for a reason worth retrying. */',
    'export async function chargeWithRetry(cartId: string): Promise<Receipt> {',
    '  try {',
    '    return await charge(cartId);',
    '  } catch (error) {',
    '    if (!isRetryable(error)) throw error;',
    '    await sleep(RETRY_DELAY_MS);',
    '    return http.post(`/carts/${cartId}/charge`);',
    '  }',
    '}',
    '',
  ].join('\n');

  const failingOutput =
    '\x1b[2m> acme-web@2.4.0 test\n> vitest run checkout\x1b[0m\n\n' +
    ' \x1b[32m✓\x1b[0m src/checkout/cart.test.ts \x1b[2m(12 tests)\x1b[0m \x1b[33m41ms\x1b[0m\n' +
    ' \x1b[31m❯\x1b[0m src/checkout/checkout.test.ts \x1b[2m(6 tests | 1 failed)\x1b[0m \x1b[33m388ms\x1b[0m\n' +
    '   \x1b[31m×\x1b[0m checkout > charges the card once\n' +
    '\n\x1b[31mAssertionError: expected "charge" to be called 1 times, but got 0 times\x1b[0m\n' +
    '\x1b[36m ❯ src/checkout/checkout.test.ts:22:30\x1b[0m\n\n' +
    ' \x1b[1mTest Files\x1b[0m  \x1b[31m1 failed\x1b[0m | \x1b[32m1 passed\x1b[0m (2)\n' +
    '      \x1b[1mTests\x1b[0m  \x1b[31m1 failed\x1b[0m | \x1b[32m17 passed\x1b[0m (18)\n';
  const passingOutput =
    '\x1b[2m> acme-web@2.4.0 test\n> vitest run checkout\x1b[0m\n\n' +
    ' \x1b[32m✓\x1b[0m src/checkout/cart.test.ts \x1b[2m(12 tests)\x1b[0m \x1b[33m39ms\x1b[0m\n' +
    ' \x1b[32m✓\x1b[0m src/checkout/checkout.test.ts \x1b[2m(6 tests)\x1b[0m \x1b[33m402ms\x1b[0m\n\n' +
    ' \x1b[1mTest Files\x1b[0m  \x1b[32m2 passed\x1b[0m (2)\n' +
    '      \x1b[1mTests\x1b[0m  \x1b[32m18 passed\x1b[0m (18)\n';

  const answer =
    'The test was racing the payment request: it asserted on `api.charge` right after the click, but the ' +
    'click handler awaits the form validation first, so on a slow run the charge had not happened yet.\n\n' +
    '**What I changed**\n\n' +
    '- The test now waits for the confirmation text before asserting, which is what a person would see.\n' +
    '- No production code changed.\n\n' +
    '```ts\nawait user.click(screen.getByRole("button", { name: "Pay" }));\nawait screen.findByText("Payment received");\nexpect(api.charge).toHaveBeenCalledTimes(1);\n```\n\n' +
    'I ran the suite 20 times in a row with `--repeat 20` and it passed every time. See the ' +
    '[Testing Library docs](https://testing-library.com/docs/dom-testing-library/api-async/) on `findBy` queries.';

  const demoTurns = () => {
    const firstItems = [
      user('The checkout test fails about one run in five. Find out why and fix it.'),
      reasoning([
        '**Reproducing the failure**\n\nI will run the checkout tests a few times to see the failing assertion and its timing.',
      ]),
      command('npm test -- checkout', failingOutput, 1, 4210),
      command(
        "rg -n 'charge' src/checkout",
        'src/checkout/api.ts:4:export async function charge(cartId: string)\nsrc/checkout/Checkout.tsx:31:    await api.charge(cart.id);\nsrc/checkout/checkout.test.ts:23:    expect(api.charge).toHaveBeenCalledTimes(1);\n',
        0,
        38,
        {
          commandActions: [
            { type: 'search', command: "rg -n 'charge' src/checkout", query: 'charge', path: 'src/checkout' },
          ],
        },
      ),
      agent(
        'The handler awaits validation before charging, so the assertion can run too early. I will make the test wait for what the user sees.',
        'commentary',
      ),
      {
        type: 'fileChange',
        id: id('f'),
        status: 'completed',
        changes: [
          { path: `${cwd}/src/checkout/checkout.test.ts`, kind: { type: 'update', move_path: null }, diff: TEST_DIFF },
        ],
      },
      command('npm test -- checkout', passingOutput, 0, 3980),
      agent(answer),
    ];
    const second = [
      user('Also make the retry delay configurable, and double it for the retry after a timeout.'),
      reasoning([
        '**Finding the retry logic**\n\nThe delay is a constant in `api.ts`.',
        '**Planning the change**\n\nRead it from the environment with the old value as default.',
      ]),
      command('cat src/checkout/api.ts', API_ORIGINAL, 0, 12, {
        commandActions: [
          { type: 'read', command: 'cat src/checkout/api.ts', name: 'api.ts', path: `${cwd}/src/checkout/api.ts` },
        ],
      }),
    ];
    return [
      turn('turn_a', firstItems, { durationMs: 92_300 }),
      turn('turn_b', second, { status: 'inProgress', completedAt: null, durationMs: null, startedAt: now - 14 }),
    ];
  };

  const lists = {
    live: [
      thread('thr_demo', {
        name: 'Fix flaky checkout test',
        preview: 'The checkout test fails about one run in five.',
        updatedAt: now - 20,
        status: { type: 'active', activeFlags: [] },
      }),
      thread('thr_dark', { preview: 'Add a dark mode toggle to the settings page', updatedAt: now - 3 * 3600 }),
      thread('thr_dark2', {
        forkedFromId: 'thr_dark',
        name: 'Dark mode — CSS variables',
        preview: 'Add a dark mode toggle',
        updatedAt: now - 2 * 3600,
      }),
      thread('thr_vite', { preview: 'Migrate the build from webpack to Vite 8', updatedAt: now - 26 * 3600 }),
      thread('thr_leak', {
        preview: 'Investigate the memory leak in the image worker',
        updatedAt: now - 3 * 86400,
        status: { type: 'systemError' },
      }),
      thread('thr_docs', {
        preview: 'Update the README badges and the contributing guide',
        updatedAt: now - 9 * 86400,
      }),
    ],
    archived: [
      thread('thr_old', { preview: 'Spike: server-side rendering of the product page', updatedAt: now - 40 * 86400 }),
    ],
  };

  // The bench thread: `items` items, ten per turn.
  const benchThread = () => {
    const total = config.items || 5000;
    const turns = [];
    for (let t = 0; t * 10 < total; t++) {
      const items = [
        user(`Step ${t}: refactor module ${t} and keep the tests green.`),
        reasoning([`**Looking at module ${t}**\n\nIt has three callers.`]),
        command(`npm test -- module-${t}`, `\x1b[32m✓\x1b[0m module-${t} (4 tests)\n`, 0, 900 + t),
        agent(
          `Module ${t} now exports a single \`run()\` function. The callers were updated:\n\n- a.ts\n- b.ts\n- c.ts`,
          'commentary',
        ),
        command(`rg -n "module${t}" src`, `src/a.ts:3:import { run } from "./module${t}";\n`, 0, 20),
        {
          type: 'fileChange',
          id: id('f'),
          status: 'completed',
          changes: [
            {
              path: `${cwd}/src/module${t}.ts`,
              kind: { type: 'update', move_path: null },
              diff: `--- a/src/module${t}.ts\n+++ b/src/module${t}.ts\n@@ -1,3 +1,3 @@\n-export function go() {}\n+export function run() {}\n export const x = 1;\n export const y = 2;\n`,
            },
          ],
        },
        command(`npm run lint`, 'No problems.\n', 0, 2100),
        reasoning(['**Checking the callers**']),
        { type: 'webSearch', id: id('w'), query: `module ${t} pattern` },
        agent(`Done with step ${t}. All **4 tests** pass and the linter is clean.`),
      ].slice(0, Math.min(10, total - t * 10));
      turns.push(
        turn(`turn_${t}`, items, {
          startedAt: now - 100000 + t * 60,
          completedAt: now - 100000 + t * 60 + 50,
          durationMs: 50_000,
        }),
      );
    }
    return thread('thr_bench', { name: `Bench thread (${total} items)`, preview: 'bench', turns, updatedAt: now });
  };

  const threads = new Map();
  for (const t of [...lists.live, ...lists.archived]) threads.set(t.id, t);
  threads.set('thr_demo', { ...threads.get('thr_demo'), turns: demoTurns() });
  if (config.scenario === 'bench') {
    const big = benchThread();
    threads.set(big.id, big);
    lists.live.unshift(big);
  }

  const files = { [`${cwd}/src/checkout/api.ts`]: API_ORIGINAL };
  const settings = {
    model: 'gpt-5.1-codex',
    modelProvider: 'openai',
    cwd,
    approvalPolicy: 'on-request',
    sandbox: { type: 'workspaceWrite' },
    reasoningEffort: 'medium',
  };
  const usage = (used) => ({
    total: {
      totalTokens: used * 3,
      inputTokens: used * 2,
      cachedInputTokens: used,
      outputTokens: used,
      reasoningOutputTokens: 400,
    },
    last: {
      totalTokens: used,
      inputTokens: used - 900,
      cachedInputTokens: 1200,
      outputTokens: 900,
      reasoningOutputTokens: 200,
    },
    modelContextWindow: 272000,
  });

  const emit = (method, params) => {
    for (const listener of [...notificationListeners]) listener({ method, params });
  };
  const serverRequest = (request) => {
    if (requestListeners.size === 0) heldRequests.push(request);
    for (const listener of [...requestListeners]) listener(request);
  };

  const toBase64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  const ok = (result) => Promise.resolve({ ok: true, result });
  /** Turns `thread/resume` answers with, as src-main/server/handlers/threads.ts. */
  const RESUME_TURNS = 100;

  const handlers = {
    initialize: () =>
      ok({ userAgent: 'weft/0.1.0 (fake)', codexHome: '/home/ada/.weft', platformFamily: 'unix', platformOs: 'linux' }),
    'thread/list': (p) =>
      ok({
        data:
          p && p.archived
            ? lists.archived
            : p && p.searchTerm
              ? lists.live.filter((t) => (t.name || t.preview).toLowerCase().includes(p.searchTerm.toLowerCase()))
              : lists.live,
        nextCursor: null,
      }),
    'thread/resume': (p) => {
      const t = threads.get(p.threadId);
      if (!t) return Promise.resolve({ ok: false, error: { code: -32602, message: `no thread ${p.threadId}` } });
      if (t.id === 'thr_demo')
        setTimeout(
          () => emit('thread/tokenUsage/updated', { threadId: t.id, turnId: 'turn_b', tokenUsage: usage(68400) }),
          0,
        );
      // As Weft's server: the newest RESUME_TURNS turns, and a cursor for the older ones.
      const from = Math.max(0, t.turns.length - RESUME_TURNS);
      return ok({
        thread: { ...t, turns: t.turns.slice(from) },
        ...settings,
        weftOlderTurnsCursor: from > 0 ? `before:${from}` : null,
      });
    },
    'thread/turns/list': (p) => {
      const t = threads.get(p.threadId);
      if (!t) return Promise.resolve({ ok: false, error: { code: -32602, message: `no thread ${p.threadId}` } });
      const before = p.cursor ? Number(p.cursor.slice('before:'.length)) : t.turns.length;
      const from = Math.max(0, before - (p.limit || 50));
      return ok({ data: t.turns.slice(from, before), nextCursor: from > 0 ? `before:${from}` : null });
    },
    'thread/read': (p) => ok({ thread: threads.get(p.threadId) }),
    'thread/start': (p) => {
      const t = thread(id('thr'), { status: { type: 'idle' } });
      threads.set(t.id, t);
      return ok({ thread: t, ...settings, cwd: (p && p.cwd) || cwd });
    },
    'thread/fork': (p) => {
      const source = threads.get(p.threadId);
      const t = thread(id('thr'), { forkedFromId: p.threadId, preview: source.preview, turns: source.turns });
      threads.set(t.id, t);
      return ok({ thread: t });
    },
    'thread/archive': () => ok({}),
    'thread/unarchive': (p) => ok({ thread: threads.get(p.threadId) }),
    'thread/name/set': (p) => {
      setTimeout(() => emit('thread/name/updated', { threadId: p.threadId, name: p.name }), 0);
      return ok({});
    },
    'turn/start': () => ok({ turn: turn(id('turn'), [], { status: 'inProgress' }) }),
    'turn/steer': () => ok({}),
    'turn/interrupt': () => ok({}),
    'model/list': () =>
      ok({
        data: [
          {
            id: 'gpt-5.1-codex',
            displayName: 'GPT-5.1 Codex',
            contextWindow: 272000,
            isDefault: true,
            supportedReasoningEfforts: ['low', 'medium', 'high'].map((e) => ({ reasoningEffort: e, description: e })),
          },
          { id: 'gpt-5.1-codex-mini', displayName: 'GPT-5.1 Codex Mini', contextWindow: 272000 },
        ],
      }),
    'config/read': () =>
      ok({
        config: {
          model: 'gpt-5.1-codex',
          approval_policy: 'on-request',
          sandbox_mode: 'workspace-write',
          model_reasoning_effort: 'medium',
        },
      }),
    'fs/readFile': (p) =>
      files[p.path] === undefined
        ? Promise.resolve({ ok: false, error: { code: -32602, message: 'not found' } })
        : ok({ dataBase64: toBase64(files[p.path]) }),
  };

  window.weft = {
    platform: 'linux',
    request(method, params) {
      const handler = handlers[method];
      return handler
        ? handler(params)
        : Promise.resolve({ ok: false, error: { code: -32601, message: `fake: no ${method}` } });
    },
    onNotification(listener) {
      notificationListeners.add(listener);
      return () => notificationListeners.delete(listener);
    },
    onServerRequest(listener) {
      requestListeners.add(listener);
      for (const request of heldRequests.splice(0)) listener(request);
      return () => requestListeners.delete(listener);
    },
    respond(request, result) {
      responses.push({ request, result });
    },
    onShellEvent: () => () => undefined,
    openProject: () => Promise.resolve(false),
  };

  /** Streams `count` agent-message deltas at `perSecond` into a new turn of `threadId`; resolves when sent. */
  const streamDeltas = (threadId, count, perSecond) =>
    new Promise((resolve) => {
      const turnId = id('turn');
      const itemId = id('m');
      emit('turn/started', {
        threadId,
        turn: turn(turnId, [], {
          status: 'inProgress',
          completedAt: null,
          durationMs: null,
          startedAt: Math.floor(Date.now() / 1000),
        }),
      });
      emit('item/started', { threadId, turnId, item: { type: 'agentMessage', id: itemId, text: '', phase: null } });
      const words = [
        'the ',
        'agent ',
        'streams ',
        'text, ',
        '`code` ',
        'and ',
        '**bold** ',
        'words\n\n',
        'into ',
        'a ',
        'message. ',
      ];
      const start = performance.now();
      let sent = 0;
      const timer = setInterval(() => {
        const due = Math.min(count, Math.floor(((performance.now() - start) / 1000) * perSecond));
        while (sent < due) {
          emit('item/agentMessage/delta', { threadId, turnId, itemId, delta: words[sent % words.length] });
          sent += 1;
        }
        if (sent >= count) {
          clearInterval(timer);
          resolve({ sent, seconds: (performance.now() - start) / 1000, turnId, itemId });
        }
      }, 4);
    });

  /** Streams `bytes` of command output in `chunk`-sized deltas at `perSecond` bytes a second. */
  const streamOutput = (threadId, bytes, chunk, perSecond) =>
    new Promise((resolve) => {
      const turnId = id('turn');
      const itemId = id('c');
      emit('turn/started', {
        threadId,
        turn: turn(turnId, [], { status: 'inProgress', completedAt: null, durationMs: null }),
      });
      emit('item/started', {
        threadId,
        turnId,
        item: { ...command('yes | head -c 10M', null, null, null), id: itemId, status: 'inProgress' },
      });
      const line = '\x1b[32mok\x1b[0m line of build output that goes on for a while 0123456789\n';
      const piece = line.repeat(Math.ceil(chunk / line.length)).slice(0, chunk);
      let sent = 0;
      const start = performance.now();
      const timer = setInterval(() => {
        const due = Math.min(bytes, ((performance.now() - start) / 1000) * perSecond);
        while (sent < due) {
          emit('item/commandExecution/outputDelta', { threadId, turnId, itemId, delta: piece });
          sent += piece.length;
        }
        if (sent >= bytes) {
          clearInterval(timer);
          resolve({ sent, seconds: (performance.now() - start) / 1000 });
        }
      }, 4);
    });

  window.__weftFakeControl = {
    emit,
    serverRequest,
    responses,
    streamDeltas,
    streamOutput,
    cwd,
    usage,
    TEST_DIFF,
    CLIENT_DIFF,
  };
})();
