// The `browser` tools end to end: a scripted model drives the system's Chromium through the real session
// against a small page served on 127.0.0.1 by the test.
import { readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputImageContent, type BrowserActionItem, type ContentItem } from '../../src-preload/protocol';
import { paramsOf, startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';
import { startLocalSite, type LocalSite } from '../support/local-site';

const PAGE = `<!doctype html><title>Counter</title>
<h1>Counter</h1>
<button onclick="document.getElementById('count').textContent = String(Number(document.getElementById('count').textContent) + 1)">Add one</button>
<p id="count">0</p>
<script>console.error('boom from the page'); fetch('/missing');</script>`;

let server: MockResponsesServer;
let site: LocalSite;
let siteUrl: string;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'index.html': '<title>Local file</title><p>from the workspace</p>' });
  site = await startLocalSite((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (req.url === '/tall')
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<body style="margin:0"><div style="height:50000px">tall</div>');
    else if (req.url === '/favicon.ico') res.writeHead(204).end();
    else if (req.url === '/popups')
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<title>Popups</title><script>for (let i = 0; i < 1000; i++) window.open("/blank");</script>');
    else if (req.url === '/blank') res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Blank</title>');
    else if (req.url === '/hang')
      return; // never answered
    else if (req.url === '/away') res.writeHead(302, { location: 'http://example.com/' }).end();
    else res.writeHead(404).end('not here');
  });
  siteUrl = site.url;
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await site.close();
  await ws.cleanup();
});

const calls = (...c: ReturnType<typeof evNamespacedCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});
const browser = (id: string, name: string, args: object) => evNamespacedCall(id, 'browser', name, args);

function browserItems(events: AgentHarness['events']): BrowserActionItem[] {
  return paramsOf(events, 'item/completed').flatMap((p) => (p.item.type === 'browserAction' ? [p.item] : []));
}

function outputOf(body: unknown, callId: string): string | ContentItem[] {
  const found = assertAllToolOutputsAnswered(body).find((o) => o.call_id === callId);
  if (found === undefined) throw new Error(`no output for ${callId}`);
  return found.output as string | ContentItem[];
}

function pngSizeOf(dataUrl: string): { width: number; height: number } {
  const png = Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The Chromium processes this test process started for the browser tools, with their profiles. */
async function ownBrowsers(): Promise<{ pid: number; profile: string }[]> {
  const found: { pid: number; profile: string }[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0');
      const flag = argv.find((a) => a.startsWith(`--user-data-dir=${tmpdir()}/weft-browser-`));
      if (flag !== undefined) found.push({ pid: Number(name), profile: flag.slice('--user-data-dir='.length) });
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** Kills the renderer processes of this process's browsers: their pages crash. */
async function killRenderers(): Promise<void> {
  const profiles = (await ownBrowsers()).map((b) => b.profile);
  expect(profiles).toHaveLength(1);
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Chromium's child processes rewrite their command line as one space-separated string.
      const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split(/[\0 ]/);
      if (argv.includes('--type=renderer') && argv.some((a) => profiles.some((p) => a === `--user-data-dir=${p}`)))
        process.kill(Number(name), 'SIGKILL');
    } catch {
      // gone while we looked
    }
  }
}

describe('browser tools', () => {
  it('opens a local page, screenshots it, clicks a button by role and name, reads the result and the console', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: `${siteUrl}/` }),
        browser('b2', 'screenshot', {}),
        browser('b3', 'click', { role: 'button', name: 'Add one' }),
        browser('b4', 'read', { selector: '#count' }),
        browser('b5', 'console', {}),
        browser('b6', 'read', {}),
      ),
      answerTurn('looked'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('check the page');

    const tools = (server.requests[0]?.body as { tools: { type: string; name?: string; tools?: { name: string }[] }[] })
      .tools;
    expect(tools.find((t) => t.name === 'browser')).toMatchObject({
      type: 'namespace',
      tools: ['open', 'screenshot', 'click', 'type', 'read', 'console', 'evaluate', 'close'].map((name) => ({ name })),
    });

    const body = server.requests[1]?.body;
    expect(outputOf(body, 'b1')).toBe(`Opened ${siteUrl}/ — "Counter" (HTTP 200).`);
    const shot = outputOf(body, 'b2');
    if (!Array.isArray(shot)) throw new Error('the screenshot output carries no image');
    expect(shot[0]).toEqual({ type: 'input_text', text: `Screenshot of ${siteUrl}/ — "Counter": 1229×768 px.` });
    // 1280×800 viewport scaled so its short side is 768.
    expect(pngSizeOf(InputImageContent.parse(shot[1]).image_url)).toEqual({ width: 1229, height: 768 });
    expect(outputOf(body, 'b3')).toBe(`Clicked button "Add one"; the page is ${siteUrl}/ — "Counter".`);
    expect(outputOf(body, 'b4')).toBe(`Visible text of #count on ${siteUrl}/ — "Counter":\n1`);
    expect(outputOf(body, 'b5')).toBe(
      [
        '[error] boom from the page',
        `[failed request] GET ${siteUrl}/missing: HTTP 404`,
        '[error] Failed to load resource: the server responded with a status of 404 (Not Found)',
      ].join('\n'),
    );
    expect(outputOf(body, 'b6')).toBe(
      `Accessibility snapshot of ${siteUrl}/ — "Counter":\n- heading "Counter" [level=1]\n- button "Add one"\n- paragraph: "1"`,
    );

    const items = browserItems(events);
    expect(items.map((i) => [i.action, i.status, i.target, i.url])).toEqual([
      ['open', 'completed', `${siteUrl}/`, `${siteUrl}/`],
      ['screenshot', 'completed', 'viewport', `${siteUrl}/`],
      ['click', 'completed', 'button "Add one"', `${siteUrl}/`],
      ['read', 'completed', '#count', `${siteUrl}/`],
      ['console', 'completed', '', null],
      ['read', 'completed', '', `${siteUrl}/`],
    ]);
    const screenshot = items[1]?.screenshot;
    expect(screenshot).toEqual({ path: expect.stringMatching(/browser-.+\.png$/), width: 1229, height: 768 });
    expect((await stat(screenshot?.path ?? '')).size).toBeGreaterThan(1000);
  });

  it("runs without Chromium's omnibox popup WebUI, a renderer of its own for a popup no one opens", async () => {
    server.enqueueMany([calls(browser('b1', 'open', { url: `${siteUrl}/` })), answerTurn('opened')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('open the page');
    const profiles = (await ownBrowsers()).map((b) => b.profile);
    expect(profiles).toHaveLength(1);
    const renderers: string[] = [];
    for (const name of await readdir('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split(/[\0 ]/);
        if (argv.includes('--type=renderer') && argv.some((a) => profiles.some((p) => a === `--user-data-dir=${p}`)))
          renderers.push(argv.includes('--top-chrome-webui') ? 'top-chrome WebUI' : 'page');
      } catch {
        // gone while we looked
      }
    }
    expect(renderers).toContain('page');
    expect(renderers).not.toContain('top-chrome WebUI');
  });

  it('cuts a 50,000-px page to 4000 px and scales it to fit', async () => {
    server.enqueueMany([
      calls(browser('b1', 'open', { url: `${siteUrl}/tall` }), browser('b2', 'screenshot', { full_page: true })),
      answerTurn('done'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('look');
    const shot = outputOf(server.requests[1]?.body, 'b2');
    if (!Array.isArray(shot)) throw new Error('no image');
    expect(shot[0]).toEqual({
      type: 'input_text',
      text: `Screenshot of ${siteUrl}/tall: 655×2048 px. The page is taller: only its top 4000 px were captured.`,
    });
    expect(pngSizeOf(InputImageContent.parse(shot[1]).image_url)).toEqual({ width: 655, height: 2048 });
  });

  it('refuses hosts beyond loopback with the network off, redirects included, and allows workspace files', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: 'http://example.com/' }),
        browser('b2', 'open', { url: `${siteUrl}/away` }),
        browser('b3', 'open', { url: `file://${ws.path('index.html')}` }),
        browser('b4', 'open', { url: 'file:///etc/passwd' }),
      ),
      answerTurn('done'),
    ]);
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.dir,
      overrides: { sandboxPolicy: { type: 'workspaceWrite', writableRoots: [], networkAccess: false } },
    });
    await agent.runTurn('go out');
    const body = server.requests[1]?.body;
    const off =
      'the network is off for this thread, and the browser may only reach localhost, 127.0.0.0/8, [::1] and files in the workspace';
    expect(outputOf(body, 'b1')).toBe(`browser open failed: refused to open http://example.com/: ${off}`);
    expect(outputOf(body, 'b2')).toBe(`browser open failed: refused to open http://example.com/: ${off}`);
    expect(outputOf(body, 'b3')).toBe(`Opened file://${ws.path('index.html')} — "Local file" (HTTP 200).`);
    expect(outputOf(body, 'b4')).toBe(
      `browser open failed: refused to open file:///etc/passwd: files outside the workspace (${ws.dir}) cannot be opened`,
    );
  });

  it('asks once per origin with the network on, and before evaluating a script', async () => {
    server.enqueueMany([
      calls(
        browser('b1', 'open', { url: 'http://weft-origin.invalid/' }),
        browser('b2', 'open', { url: 'http://weft-origin.invalid/again' }),
        browser('b3', 'open', { url: 'http://weft-other.invalid/' }),
        browser('b4', 'open', { url: `${siteUrl}/` }),
        browser('b5', 'evaluate', { expression: 'document.title + " " + (1 + 2)' }),
      ),
      answerTurn('done'),
    ]);
    const answers = ['Allow', 'Decline', 'Allow'];
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.dir,
      config: { approval_policy: 'on-request' },
      sendRequest: async () => ({ answers: { approval: { answers: [answers.shift() ?? 'Decline'] } } }),
    });
    await agent.runTurn('browse');
    const questions = agent.serverRequests.map((r) =>
      r.method === 'item/tool/requestUserInput' ? r.params.questions.map((q) => q.question) : r.method,
    );
    expect(questions).toEqual([
      ["Allow the agent's browser to load pages and resources from http://weft-origin.invalid?"],
      ["Allow the agent's browser to load pages and resources from http://weft-other.invalid?"],
      ['Allow the agent to run this script in the page?\ndocument.title + " " + (1 + 2)'],
    ]);
    const body = server.requests[1]?.body;
    // Allowed, then not found: the proxy answers for the host that does not exist.
    expect(outputOf(body, 'b1')).toBe('Opened http://weft-origin.invalid/ (HTTP 502).');
    expect(outputOf(body, 'b2')).toBe('Opened http://weft-origin.invalid/again (HTTP 502).');
    expect(outputOf(body, 'b3')).toBe(
      'browser open failed: refused to open http://weft-other.invalid/: the user did not allow the browser to reach http://weft-other.invalid',
    );
    expect(outputOf(body, 'b5')).toBe('"Counter 3"');
  });

  it('closes popups beyond the cap, and restarts a crashed browser once, then reports the crash', async () => {
    server.enqueueMany([
      calls(browser('b1', 'open', { url: `${siteUrl}/popups` }), browser('b2', 'console', {})),
      answerTurn('popups seen'),
      calls(browser('c1', 'read', {})),
      answerTurn('restarted'),
      calls(browser('d1', 'read', {})),
      answerTurn('gave up'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('open the popups');
    // Five popups are opened, the rest refused. With the page itself that is one page too many, which the
    // browser closes when it hears of it: perhaps only after this call (the page count is asynchronous).
    const lines = String(outputOf(server.requests[1]?.body, 'b2')).split('\n').sort();
    const refused = '[warning] window.open was refused: a page may open at most 5 popups';
    const closed = '[popup] a page the site opened was closed: at most 5 pages may be open';
    expect(lines).toEqual(lines.length === 1 ? [refused] : [closed, refused]);

    await killRenderers();
    await agent.runTurn('read it');
    expect(outputOf(server.requests[3]?.body, 'c1')).toMatch(
      /^The browser had crashed and was started again with a fresh profile\.\nAccessibility snapshot of /,
    );
    await killRenderers();
    await agent.runTurn('read it again');
    expect(outputOf(server.requests[5]?.body, 'd1')).toBe(
      'browser read failed: the browser crashed again after it was restarted; it is not restarted any more in this thread (call `close`, then `open` to try once more)',
    );
  });

  it('says when a page does not finish loading in time', async () => {
    server.enqueueMany([calls(browser('b1', 'open', { url: `${siteUrl}/hang` })), answerTurn('slow')]);
    // A short load timeout of config.toml's `[browser]` (15 s when not set), which the message names.
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { browser: { load_timeout_sec: 3 } } });
    await agent.runTurn('open the slow page');
    expect(outputOf(server.requests[1]?.body, 'b1')).toBe(
      `browser open failed: ${siteUrl}/hang did not finish loading within 3 s (the server may be slow or hung); take a screenshot or read the page to see what arrived`,
    );
  });

  it('leaves no Chromium process and no profile once the thread ends', async () => {
    server.enqueueMany([calls(browser('b1', 'open', { url: `${siteUrl}/` })), answerTurn('done')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('open it');
    const running = await ownBrowsers();
    expect(running).toHaveLength(1);
    await agent.close();
    agent = undefined;
    expect(await ownBrowsers()).toEqual([]);
    await expect(stat(running[0]?.profile ?? '')).rejects.toThrow(/ENOENT/);
  });

  it('offers no browser tools, and says nothing of them, when `[browser] enabled = false`', async () => {
    server.enqueue(answerTurn('one'));
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { browser: { enabled: false } } });
    await agent.runTurn('first');
    const body = server.requests[0]?.body as { tools: { name?: string }[]; input: unknown[] };
    expect(body.tools.map((t) => t.name)).not.toContain('browser');
    expect(JSON.stringify(body.input)).not.toContain('browser tools');
  });

  it('offers no browser tools when there is no browser, and tells the model why once', async () => {
    server.enqueueMany([answerTurn('one'), answerTurn('two')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, config: { browser: { path: '/nonexistent/chromium' } } });
    await agent.runTurn('first');
    await agent.runTurn('second');
    const note =
      'The browser tools are not available in this thread: the browser set in config.toml (`[browser] path = "/nonexistent/chromium"`) is not an executable file: fix the path or remove the setting.';
    for (const request of server.requests) {
      const body = request.body as { tools: { name?: string }[]; input: unknown[] };
      expect(body.tools.some((t) => t.name === 'browser')).toBe(false);
      const said = body.input.filter((item) => JSON.stringify(item).includes(JSON.stringify(note).slice(1, -1)));
      expect(said).toEqual([{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: note }] }]);
    }
  });
});
