// The live view of a thread's browser through the real app host: a client watching it gets the page's picture
// (JPEG frames from the system's Chromium) and its clicks, wheel and keys reach the page; the model's page is a
// small site the test serves on 127.0.0.1, opened by a scripted model's `browser` calls.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalSite, type LocalSite } from '../support/local-site';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { startInProcessHost, type InProcessClient, type InProcessHost, ok } from '../support/in-process-host';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { locateBrowser } from '../../src-main/browser/locate';

const located = await locateBrowser(undefined);
const skip = located.found ? '' : ' — SKIPPED: no Chromium here';

/** A button at a known place, a text field that submits, and a page tall enough to scroll; each reports to the site. */
const PAGE = `<!doctype html><title>Live</title>
<style>body { margin: 0; height: 4000px; font: 16px sans-serif }</style>
<button id="b" style="position:absolute;left:100px;top:100px;width:200px;height:50px"
  onclick="fetch('/clicked'); this.textContent = 'pressed'; document.body.style.background = '#fdd'">Press</button>
<form action="/typed" style="position:absolute;left:100px;top:300px"><input name="value" style="width:300px;height:40px"></form>
<script>let told = false; addEventListener('scroll', () => { if (!told && scrollY > 100) { told = true; fetch('/scrolled'); } });
let from = null; addEventListener('mousedown', (e) => { from = e.clientX; });
addEventListener('mouseup', (e) => { if (from !== null) fetch('/drag?dx=' + (e.clientX - from) + '&buttons=' + e.button); from = null; });</script>`;

let server: MockResponsesServer;
let site: LocalSite;
let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;
const hits: string[] = [];
const hitListeners = new Set<(path: string) => void>();

beforeEach(async () => {
  hits.length = 0;
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({});
  site = await startLocalSite((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    for (const l of [...hitListeners]) l(path);
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (path.startsWith('/typed')) res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else res.writeHead(204).end();
  });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await site.close();
  await ws.cleanup();
  await home.cleanup();
});

async function runTurn(client: InProcessClient, threadId: string, text: string): Promise<void> {
  const { turn } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  await waitFor(
    client.subscribe,
    (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(turn.id),
    { label: 'turn/completed' },
  );
}

function siteHit(path: string): Promise<string> {
  return waitFor<string>(
    (listener) => {
      hitListeners.add(listener);
      for (const seen of hits) listener(seen);
      return () => hitListeners.delete(listener);
    },
    (seen) => seen.startsWith(path),
    { label: `the site asked for ${path}; it got ${hits.join(', ')}` },
  );
}

interface Frame {
  threadId: string;
  data: string;
  width: number;
  height: number;
  url: string;
}

/** The first frame after `after` (an index into the client's messages) that `wanted` accepts. */
function nextFrame(
  client: InProcessClient,
  threadId: string,
  after = client.received.length,
  wanted: (frame: Frame) => boolean = () => true,
): Promise<Frame> {
  const isFrame = (m: object): m is { method: string; params: Frame } =>
    'method' in m &&
    m.method === 'weft/browser/live/frame' &&
    (m as unknown as { params: Frame }).params.threadId === threadId;
  const already = client.received.slice(after).find((m) => isFrame(m) && wanted(m.params));
  if (already !== undefined && isFrame(already)) return Promise.resolve(already.params);
  return waitFor(client.subscribe, (m) => isFrame(m) && wanted(m.params), {
    label: `weft/browser/live/frame (${wanted.toString()}); frames so far: ${client
      .notifications('weft/browser/live/frame')
      .map((n) => (n.params as unknown as Frame).url)
      .join(', ')}`,
  }).then((m) => (m as { params: Frame }).params);
}

/** The latest frame the client got. */
function lastFrame(client: InProcessClient): Frame {
  const found = client.notifications('weft/browser/live/frame').at(-1);
  if (found === undefined) throw new Error('no frame yet');
  return found.params as unknown as Frame;
}

const digest = (data: string): string => createHash('sha256').update(data).digest('hex');

describe.skipIf(!located.found)(`the live view of a thread's browser${skip}`, () => {
  it('streams the page to the client watching it and plays its clicks, wheel and keys in the page', async () => {
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client } = app;
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });

    // Before the model opened a page: watching is accepted; frames come once there is one.
    expect(await ok(client, 'weft/browser/live/start', { threadId: thread.id })).toEqual({ page: false, url: null });
    const firstFrameAt = client.received.length;
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evNamespacedCall('b1', 'browser', 'open', { url: `${site.url}/` }), evCompleted()],
      },
      answerTurn('opened'),
    ]);
    await runTurn(client, thread.id, 'open the site');
    const first = await nextFrame(client, thread.id, firstFrameAt, (f) => f.url === `${site.url}/`);
    expect(first).toMatchObject({ threadId: thread.id, width: 1280, height: 800, url: `${site.url}/` });
    const jpeg = Buffer.from(first.data, 'base64');
    expect([jpeg[0], jpeg[1], jpeg[2]]).toEqual([0xff, 0xd8, 0xff]);

    // A second start (the panel opened again) answers with the page, and the latest frame comes at once.
    const latest = lastFrame(client);
    const again = client.received.length;
    expect(await ok(client, 'weft/browser/live/start', { threadId: thread.id })).toEqual({
      page: true,
      url: `${site.url}/`,
    });
    expect(digest((await nextFrame(client, thread.id, again)).data)).toBe(digest(latest.data));

    // A click where the button is: the page runs its handler, and its new picture is sent.
    const beforeClick = client.received.length;
    const shownBeforeClick = lastFrame(client);
    await ok(client, 'weft/browser/live/input', { threadId: thread.id, input: { type: 'click', x: 200, y: 125 } });
    await siteHit('/clicked');
    expect(digest((await nextFrame(client, thread.id, beforeClick)).data)).not.toBe(digest(shownBeforeClick.data));

    // A drag: a press, moves and a release, as one gesture in the page.
    for (const input of [
      { type: 'down', x: 500, y: 600 },
      { type: 'move', x: 600, y: 600 },
      { type: 'move', x: 700, y: 600 },
      { type: 'up', x: 700, y: 600 },
    ])
      await ok(client, 'weft/browser/live/input', { threadId: thread.id, input });
    expect(await siteHit('/drag?dx=200')).toBe('/drag?dx=200&buttons=0');

    // Keys: a click in the field, text, then Enter submits the form.
    await ok(client, 'weft/browser/live/input', { threadId: thread.id, input: { type: 'click', x: 250, y: 320 } });
    await ok(client, 'weft/browser/live/input', { threadId: thread.id, input: { type: 'text', text: 'hello live' } });
    await ok(client, 'weft/browser/live/input', { threadId: thread.id, input: { type: 'key', key: 'Enter' } });
    expect(await siteHit('/typed')).toBe('/typed?value=hello+live');

    // The wheel scrolls the page (the form's answer is the same page, drawn once it has loaded).
    await nextFrame(client, thread.id, 0, (f) => f.url.includes('/typed'));
    await ok(client, 'weft/browser/live/input', {
      threadId: thread.id,
      input: { type: 'wheel', x: 640, y: 400, deltaX: 0, deltaY: 600 },
    });
    await siteHit('/scrolled');

    // Bad input is answered with what is wrong, and an unknown thread with why.
    const bad = await client.call('weft/browser/live/input', {
      threadId: thread.id,
      input: { type: 'click', x: -5, y: 10 },
    });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/input\.x/);
    const unknown = await client.call('weft/browser/live/start', { threadId: 'no-such-thread' });
    expect(unknown.error).toMatchObject({ code: -32602, message: expect.stringMatching(/not loaded/) });

    // The model closes its browser: the watcher is told, and input has no page to go to.
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evNamespacedCall('b2', 'browser', 'close', {}), evCompleted()] },
      answerTurn('closed'),
    ]);
    const closed = waitFor(
      client.subscribe,
      (m) => 'method' in m && m.method === 'weft/browser/live/closed' && JSON.stringify(m).includes(thread.id),
      { label: 'weft/browser/live/closed' },
    );
    await runTurn(client, thread.id, 'close it');
    await closed;
    const noPage = await client.call('weft/browser/live/input', {
      threadId: thread.id,
      input: { type: 'click', x: 10, y: 10 },
    });
    expect(noPage.error?.message).toMatch(/no page open/);
    expect(await ok(client, 'weft/browser/live/stop', { threadId: thread.id })).toEqual({});
  });

  it("an unsaved thread's screenshots are readable by its client, and go with the thread", async () => {
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client } = app;
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir, ephemeral: true });
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evNamespacedCall('b1', 'browser', 'open', { url: `${site.url}/` }),
          evNamespacedCall('b2', 'browser', 'screenshot', {}),
          evCompleted(),
        ],
      },
      answerTurn('looked'),
    ]);
    await runTurn(client, thread.id, 'look at the site');
    const shot = client
      .notifications('item/completed')
      .map((n) => (n.params as { item: { type: string; screenshot?: { path: string } | null } }).item)
      .find(
        (item) => item.type === 'browserAction' && item.screenshot !== null && item.screenshot !== undefined,
      )?.screenshot;
    if (shot === undefined || shot === null) throw new Error('no screenshot item');
    // In the Weft home, where sandboxed commands cannot write, not in /tmp.
    expect(shot.path.startsWith(`${home.dir}/`)).toBe(true);
    const read = await ok<{ dataBase64: string }>(client, 'fs/readFile', { path: shot.path });
    expect(Buffer.from(read.dataBase64, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    await app.close();
    app = null;
    expect(existsSync(dirname(shot.path))).toBe(false);
  });
});
