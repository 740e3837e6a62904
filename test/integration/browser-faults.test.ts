// The browser's faults come back to the model as clear errors and never hold the thread: a script
// `evaluate` runs that never finishes, a page whose script loops forever, a server that never answers, a
// download (refused). The browser's waits are set short here through config.toml's `[browser]` keys (15, 10
// and 5 s when not set, test/unit/config/load.test.ts), so each fault is met after seconds, and the messages
// name the waits set.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src-preload/protocol';
import { startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  createGate,
  startMockResponsesServer,
  type MockResponsesServer,
  type ReleasableGate,
} from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';
import { collectUntil } from '../support/wait';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';
import { startLocalSite, type LocalSite } from '../support/local-site';

let server: MockResponsesServer;
let site: LocalSite;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;
/** Requests of `/never`: taken, never answered (their sockets are destroyed after the test). */
let unanswered: ServerResponse[] = [];
/** `/later`'s page: `go` holds its `/go` until released; `looping` opens when it asks `/looping`. */
let later: { go: ReleasableGate; looping: ReleasableGate };

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({});
  unanswered = [];
  later = { go: createGate(), looping: createGate() };
  site = await startLocalSite((req, res) => {
    if (req.url === '/never') unanswered.push(res);
    else if (req.url === '/')
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Calm</title><p>calm page</p>');
    else if (req.url === '/loop')
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Loop</title><script>while (true) {}</script>');
    else if (req.url === '/later')
      // Loads, then waits for `/go`; once let go, asks `/looping` synchronously and loops: its main thread is
      // busy from the moment `/looping` is asked for, with no task between (a timer would race the next action).
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<title>Later</title><script>addEventListener("load", () => fetch("/go").then(() => { const x = new XMLHttpRequest(); x.open("GET", "/looping", false); x.send(); while (true) {} }));</script>',
        );
    else if (req.url === '/go') void later.go.released.then(() => res.writeHead(200).end('go'));
    else if (req.url === '/looping') {
      res.writeHead(200).end('looping');
      later.looping.release();
    } else if (req.url === '/file.zip')
      res
        .writeHead(200, { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="file.zip"' })
        .end('PK not really a zip');
    else if (req.url === '/links')
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Links</title><a href="/file.zip">get it</a>');
    else res.writeHead(404).end('not here');
  });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  later.go.release();
  for (const res of unanswered) res.socket?.destroy();
  await site.close();
  await ws.cleanup();
});

const browser = (id: string, name: string, args: object) => evNamespacedCall(id, 'browser', name, args);
const calls = (...c: ReturnType<typeof evNamespacedCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

function outputOf(body: unknown, callId: string): string | ContentItem[] {
  const found = assertAllToolOutputsAnswered(body).find((o) => o.call_id === callId);
  if (found === undefined) throw new Error(`no output for ${callId}`);
  return found.output as string | ContentItem[];
}

/** `[browser]` waits of a few seconds: a load, an action, a page's answer to a trivial script. */
const WAITS = { load_timeout_sec: 4, action_timeout_sec: 3, busy_timeout_sec: 2 };
/** The agent, its browser waiting as WAITS says. */
const start = (config: Record<string, unknown> = {}): AgentHarness =>
  startAgent({ baseUrl: server.url, cwd: ws.dir, config: { ...config, browser: WAITS } });

/** Runs one turn that may take a while (each fault waits out a timeout), to its end. */
async function runLongTurn(text: string, timeoutMs: number): Promise<void> {
  if (agent === undefined) throw new Error('no agent');
  const done = collectUntil(agent.subscribe, (n) => n.method === 'turn/completed', {
    label: 'turn/completed',
    timeoutMs,
  });
  await agent.session.startTurn([{ type: 'text', text }]);
  await done;
}

describe('browser faults', () => {
  it('cuts off a script that never finishes, and the next action works', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: `${site.url}/` }),
        browser('b2', 'evaluate', { expression: 'new Promise(() => {})' }),
        browser('b3', 'evaluate', { expression: 'while (true) {}' }),
        browser('b4', 'open', { url: `${site.url}/` }),
        browser('b5', 'evaluate', { expression: 'document.title' }),
      ),
      answerTurn('done'),
    ]);
    agent = start({ approval_policy: 'never' });
    await runLongTurn('evaluate', 60_000);
    const body = server.requests[1]?.body;
    const cutOff = 'browser evaluate failed: the expression did not finish within 3 s; the page was closed';
    expect([outputOf(body, 'b2'), outputOf(body, 'b3')]).toEqual([cutOff, cutOff]);
    expect(outputOf(body, 'b4')).toBe(`Opened ${site.url}/ — "Calm" (HTTP 200).`);
    expect(outputOf(body, 'b5')).toBe('"Calm"');
  }, 90_000);

  it('comes back from a page whose script loops forever with a clear error, and the next page opens', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: `${site.url}/loop` }),
        browser('b2', 'screenshot', {}),
        browser('b3', 'read', {}),
        browser('b4', 'open', { url: `${site.url}/` }),
      ),
      answerTurn('done'),
    ]);
    agent = start();
    await runLongTurn('open the looping page', 90_000);
    const body = server.requests[1]?.body;
    const loop = `${site.url}/loop`;
    expect(outputOf(body, 'b1')).toBe(
      `browser open failed: ${loop} did not finish loading within 4 s; the page ${loop} did not answer for 2 s: a script in it keeps it busy (it may loop forever), so it was closed; fix the page, then \`open\` it again`,
    );
    // The next actions run on a blank page, not on the hung one.
    const shot = outputOf(body, 'b2');
    expect(Array.isArray(shot) ? shot[0] : shot).toEqual({
      type: 'input_text',
      text: 'Screenshot of about:blank: 1229×768 px.',
    });
    expect(outputOf(body, 'b3')).toBe('Accessibility snapshot of about:blank:\n');
    expect(outputOf(body, 'b4')).toBe(`Opened ${site.url}/ — "Calm" (HTTP 200).`);
  }, 120_000);

  it('refuses a download, opened or clicked, and says so', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: `${site.url}/file.zip` }),
        browser('b2', 'open', { url: `${site.url}/links` }),
        browser('b3', 'click', { role: 'link', name: 'get it' }),
        browser('b4', 'console', {}),
      ),
      answerTurn('done'),
    ]);
    agent = start();
    await runLongTurn('download', 60_000);
    const body = server.requests[1]?.body;
    const zip = `${site.url}/file.zip`;
    expect(outputOf(body, 'b1')).toBe(
      `browser open failed: ${zip} is a download, and the browser refuses downloads (read the file with a command)`,
    );
    expect(outputOf(body, 'b3')).toBe(`Clicked link "get it"; the page is ${site.url}/links — "Links".`);
    const refused = `[download refused] ${zip} (downloads are not allowed)`;
    expect(
      String(outputOf(body, 'b4'))
        .split('\n')
        .filter((line) => line === refused),
    ).toEqual([refused, refused]);
  }, 90_000);

  it('says when a page went busy after loading, and closes it', async () => {
    server.enqueueMany([
      calls(browser('b1', 'open', { url: `${site.url}/later` })),
      {
        // The page loaded and answered; it is let go, and `read` is asked for once it has started looping.
        kind: 'sse-slow',
        events: [evCreated(), browser('b2', 'read', {}), evCompleted()],
        beforeEach: async (_event, index) => {
          if (index > 0) return;
          later.go.release();
          await later.looping.released;
        },
      },
      answerTurn('done'),
    ]);
    agent = start();
    await runLongTurn('open the page that hangs later', 60_000);
    expect(outputOf(server.requests[1]?.body, 'b1')).toBe(`Opened ${site.url}/later — "Later" (HTTP 200).`);
    expect(outputOf(server.requests[2]?.body, 'b2')).toBe(
      `browser read failed: the page ${site.url}/later did not answer for 2 s: a script in it keeps it busy (it may loop forever), so it was closed; fix the page, then \`open\` it again`,
    );
  }, 90_000);

  it('says a page is still waiting for a server that never answered, not that a script holds it', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: `${site.url}/` }),
        browser('b2', 'open', { url: `${site.url}/never` }),
        browser('b3', 'read', {}),
        browser('b4', 'open', { url: `${site.url}/` }),
      ),
      answerTurn('done'),
    ]);
    agent = start();
    await runLongTurn('open the page whose server never answers', 90_000);
    const body = server.requests[1]?.body;
    const never = `${site.url}/never`;
    expect(unanswered.length).toBeGreaterThan(0);
    expect([outputOf(body, 'b2'), outputOf(body, 'b3'), outputOf(body, 'b4')]).toEqual([
      `browser open failed: ${never} did not finish loading within 4 s (the server may be slow or hung); take a screenshot or read the page to see what arrived`,
      `browser read failed: the page was still waiting for ${never}: its server has not answered since \`open\` asked for it, so the page was closed; check that the server answers (\`curl -m 5 ${never}\`), then \`open\` it again`,
      `Opened ${site.url}/ — "Calm" (HTTP 200).`,
    ]);
  }, 120_000);
});
