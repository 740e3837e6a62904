// A browser action in a saved thread: its screenshot is a file beside the rollout (the rollout's lines carry
// its file URL, never its bytes), the item comes back on resume, and the resumed model history still shows
// the model the image.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { startLocalSite, type LocalSite } from '../support/local-site';

let server: MockResponsesServer;
let site: LocalSite;
let siteUrl: string;
let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  site = await startLocalSite((req, res) => {
    if (req.url === '/')
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Saved</title><h1>Saved page</h1>');
    else res.writeHead(204).end();
  });
  siteUrl = site.url;
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await site.close();
  await ws.cleanup();
  await home.cleanup();
});

async function startHost(): Promise<InProcessHost> {
  return startInProcessHost({ weftHome: home.dir, cwd: ws.dir, env: { WEFT_HOME: home.dir, MOCK_API_KEY: 'x' } });
}

async function runTurn(host: InProcessHost, threadId: string, text: string, n: number): Promise<void> {
  const done = waitFor(host.client.subscribe, () => host.client.notifications('turn/completed').length >= n, {
    label: `turn/completed #${n}`,
  });
  const started = await host.client.call('turn/start', { threadId, input: [{ type: 'text', text }] });
  expect(started.error).toBeUndefined();
  await done;
}

async function rolloutsIn(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && /^rollout-.*\.jsonl$/.test(entry.name)) out.push(join(entry.parentPath, entry.name));
  return out;
}

describe('browser actions in a saved thread', () => {
  it('keeps the screenshot beside the rollout, replays the item on resume and shows the model the image again', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evNamespacedCall('b1', 'browser', 'open', { url: `${siteUrl}/` }),
          evNamespacedCall('b2', 'browser', 'screenshot', {}),
          evCompleted(),
        ],
      },
      answerTurn('seen'),
      answerTurn('still seen'),
    ]);
    app = await startHost();
    const started = await app.client.call('thread/start', { cwd: ws.dir });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    await runTurn(app, threadId, 'look at it', 1);
    await app.close();
    app = null;

    const [rollout, ...others] = await rolloutsIn(join(home.dir, 'sessions'));
    expect(others).toEqual([]);
    const text = await readFile(rollout ?? '', 'utf8');
    expect(text).not.toContain('data:image');
    const shots = await readdir(`${(rollout ?? '').replace(/\.jsonl$/, '')}.files`);
    expect(shots).toEqual([expect.stringMatching(/^browser-[0-9a-f-]+\.png$/)]);
    const shotPath = `${(rollout ?? '').replace(/\.jsonl$/, '')}.files/${shots[0] ?? ''}`;
    expect(text).toContain(`"image_url":"file://${shotPath}"`);
    expect((await stat(shotPath)).size).toBeGreaterThan(1000);

    app = await startHost();
    const resumed = await app.client.call('thread/resume', { threadId, cwd: ws.dir });
    expect(resumed.error).toBeUndefined();
    const turns = (resumed.result as { thread: { turns: { items: { type: string }[] }[] } }).thread.turns;
    const items = turns.flatMap((t) => t.items).filter((i) => i.type === 'browserAction');
    expect(items).toEqual([
      {
        type: 'browserAction',
        id: expect.any(String),
        action: 'open',
        status: 'completed',
        target: `${siteUrl}/`,
        url: `${siteUrl}/`,
        output: `Opened ${siteUrl}/ — "Saved" (HTTP 200).`,
        error: null,
        screenshot: null,
        durationMs: expect.any(Number),
      },
      {
        type: 'browserAction',
        id: expect.any(String),
        action: 'screenshot',
        status: 'completed',
        target: 'viewport',
        url: `${siteUrl}/`,
        output: `Screenshot of ${siteUrl}/ — "Saved": 1229×768 px.`,
        error: null,
        screenshot: { path: shotPath, width: 1229, height: 768 },
        durationMs: expect.any(Number),
      },
    ]);

    await runTurn(app, threadId, 'and now?', 1);
    const last = JSON.stringify(server.requests.at(-1)?.body);
    const png = await readFile(shotPath);
    expect(last).toContain(`data:image/png;base64,${png.toString('base64')}`);
    expect(last).not.toContain('file://');
  });
});

type BrowserItem = { type: 'browserAction'; screenshot: { path: string } | null };

async function screenshotPaths(host: InProcessHost, threadId: string): Promise<string[]> {
  const read = await host.client.call('thread/read', { threadId, includeTurns: true });
  expect(read.error).toBeUndefined();
  const turns = (read.result as { thread: { turns: { items: { type: string }[] }[] } }).thread.turns;
  return turns
    .flatMap((t) => t.items)
    .filter((i): i is BrowserItem => i.type === 'browserAction')
    .flatMap((i) => (i.screenshot === null ? [] : [i.screenshot.path]));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe("a thread's screenshots follow its rollout", () => {
  it('archive moves them with it, unarchive brings them back, and a fork still shows and sends the ones it copied', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evNamespacedCall('b1', 'browser', 'open', { url: `${siteUrl}/` }),
          evNamespacedCall('b2', 'browser', 'screenshot', {}),
          evCompleted(),
        ],
      },
      answerTurn('seen'),
      answerTurn('the fork still sees it'),
    ]);
    app = await startHost();
    const started = await app.client.call('thread/start', { cwd: ws.dir });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    await runTurn(app, threadId, 'look at it', 1);

    const [rollout] = await rolloutsIn(join(home.dir, 'sessions'));
    const filesDir = `${(rollout ?? '').replace(/\.jsonl$/, '')}.files`;
    const [shotName] = await readdir(filesDir);
    const shot = join(filesDir, shotName ?? '');
    expect(await screenshotPaths(app, threadId)).toEqual([shot]);

    const forked = await app.client.call('thread/fork', { threadId });
    expect(forked.error).toBeUndefined();
    const forkId = (forked.result as { thread: { id: string } }).thread.id;
    const forkRollout = (await rolloutsIn(join(home.dir, 'sessions'))).find((p) => p.includes(forkId)) ?? '';
    const forkShot = join(`${forkRollout.replace(/\.jsonl$/, '')}.files`, shotName ?? '');

    const archived = await app.client.call('thread/archive', { threadId });
    expect(archived.error).toBeUndefined();
    const archivedShot = join(
      home.dir,
      'archived_sessions',
      `${(rollout ?? '')
        .split('/')
        .at(-1)
        ?.replace(/\.jsonl$/, '')}.files`,
      shotName ?? '',
    );
    expect({ old: await exists(filesDir), moved: await exists(archivedShot) }).toEqual({ old: false, moved: true });
    expect(await screenshotPaths(app, threadId)).toEqual([archivedShot]);

    // The fork's copied item and its model history still reach the image, the source being archived.
    expect(await screenshotPaths(app, forkId)).toEqual([forkShot]);
    expect(await exists(forkShot)).toBe(true);
    await runTurn(app, forkId, 'and in the fork?', 2);
    const last = JSON.stringify(server.requests.at(-1)?.body);
    const png = await readFile(archivedShot);
    expect(last).toContain(`data:image/png;base64,${png.toString('base64')}`);
    expect(last).not.toContain('is no longer on disk');

    const unarchived = await app.client.call('thread/unarchive', { threadId });
    expect(unarchived.error).toBeUndefined();
    expect({ back: await exists(shot), archived: await exists(archivedShot) }).toEqual({ back: true, archived: false });
    expect(await screenshotPaths(app, threadId)).toEqual([shot]);
  });
});
