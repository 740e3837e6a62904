// The "many agents" bench's page part: `weft serve` with its page open in headless Chromium, the 8 agents
// started from the page (New thread, Local or Worktree, then the message) and streaming into it, while a WebSocket client
// beside the page sends `thread/list` every 10 ms. Frame intervals from requestAnimationFrame and the
// main thread's CPU per frame from a DevTools trace, as in ui.bench.ts. MANY_AGENTS_UI_PROF names a folder
// for the page's CPU profile of each run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { launchBrowser } from '../test/support/chromium';
import { startListProbe, webSocketChannel } from '../test/support/list-probe';
import { startMockResponsesServer } from '../test/support/mock-responses-server';
import {
  GUARD_MS,
  cpuSeconds,
  env,
  exited,
  failedTurns,
  guarded,
  nodeArgs,
  peakRss,
  scenarioDirs,
  sleep,
  type AppServerResult,
  type Program,
} from './many-agents-host';
import { AGENTS, REQUESTS_PER_AGENT, agentPrompt, scriptAgents } from './many-agents-work';
import { startFrames, stopFrames } from './ui.bench';
import { traceFrames } from './ui-trace';

/** A folder: each run's page also writes its CPU profile there (DevTools format), to see where frames go. */
const UI_PROF = process.env['MANY_AGENTS_UI_PROF'] ? resolve(process.env['MANY_AGENTS_UI_PROF']) : null;

/**
 * MANY_AGENTS_CONTROL=1: a page with no work of its own (a box moved in every animation frame) runs beside
 * Weft's, in a browser context of its own in the same Chromium, its frame intervals taken over the same
 * streaming: what the machine, the agents and Chromium leave of a frame to any page.
 */
const CONTROL = process.env['MANY_AGENTS_CONTROL'] === '1';
const CONTROL_PAGE =
  '<div id="box" style="position:absolute;width:40px;height:40px;background:#c33"></div><script>' +
  'let x = 0; const box = document.getElementById("box");' +
  'const move = () => { x = (x + 3) % 600; box.style.transform = `translateX(${x}px)`; requestAnimationFrame(move); };' +
  'requestAnimationFrame(move);</script>';

export interface UiResult extends Omit<AppServerResult, 'turnMs' | 'mainThread'> {
  intervals: number[];
  /** The frame intervals of the page with no work beside it (MANY_AGENTS_CONTROL); null without it. */
  controlIntervals: number[] | null;
  /** Main-thread CPU per frame; empty when the run was not traced. */
  cpuMs: number[];
  /** Whether a DevTools trace ran meanwhile (its work adds to the page's: frame intervals come from runs without). */
  traced: boolean;
  /** Messages the page's WebSockets delivered while the agents streamed, and their characters. */
  messages: number;
  messageChars: number;
}

/**
 * Counts what the page's WebSockets deliver (`message` events and their characters), in
 * `window.__benchSocketCounts`: added to the page before its own script runs (as text: it runs in the page).
 */
const COUNT_SOCKET_MESSAGES = `(() => {
  const counts = { messages: 0, chars: 0 };
  window.__benchSocketCounts = counts;
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message' || typeof listener !== 'function') return add.call(this, type, listener, options);
    return add.call(this, type, function (event) {
      counts.messages += 1;
      if (typeof event.data === 'string') counts.chars += event.data.length;
      return listener.call(this, event);
    }, options);
  };
})();`;

async function socketCounts(page: Page): Promise<{ messages: number; chars: number }> {
  return page.evaluate(() => {
    const counts: unknown = Reflect.get(window, '__benchSocketCounts');
    return counts as { messages: number; chars: number };
  });
}

/** `weft serve` on a free port; resolves with its address once it prints it. */
function startServe(
  program: Program,
  home: string,
  project: string,
  run: number,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs(`serve-${program.label}-${run}`),
      program.bin,
      'serve',
      '--cd',
      project,
      '--port',
      '0',
      '--token',
      'bench',
    ],
    {
      cwd: project,
      env: env(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolveServe, reject) => {
    child.once('exit', (code) => reject(new Error(`weft serve exited (${String(code)}):\n${stderr}`)));
    createInterface({ input: child.stdout ?? process.stdin }).on('line', (line) => {
      const url = /^Weft is serving (\S+)/.exec(line)?.[1];
      if (url !== undefined) resolveServe({ child, url });
    });
  });
}

/** An initialized WebSocket client of `weft serve`. */
async function serveClient(url: string): Promise<WebSocket> {
  const u = new URL(url);
  const ws = new WebSocket(`ws://${u.host}/ws?token=${u.searchParams.get('token') ?? ''}`);
  await new Promise<void>((r, reject) => {
    ws.once('open', () => r());
    ws.once('error', reject);
  });
  const answered = new Promise<void>((r) => {
    const onMessage = (data: Buffer): void => {
      if (!data.toString('latin1', 0, 40).includes('"id":"init"')) return;
      ws.off('message', onMessage);
      r();
    };
    ws.on('message', onMessage);
  });
  ws.send(
    JSON.stringify({ id: 'init', method: 'initialize', params: { clientInfo: { name: 'weft-bench', version: '0' } } }),
  );
  await answered;
  ws.send(JSON.stringify({ method: 'initialized' }));
  return ws;
}

/**
 * The 8 agents started from the page of `weft serve` in Chromium, streaming into it; with `worktrees`, each
 * a worktree thread of one git project (New thread → Worktree), working in its own worktree.
 */
export async function uiRun(
  program: Program,
  work: string,
  run: number,
  worktrees = false,
  traced = true,
): Promise<UiResult> {
  const mock = await startMockResponsesServer();
  const { home, project } = scenarioDirs(work, `ui-${worktrees ? 'worktrees-' : ''}${program.label}`, mock, worktrees);
  const served = await startServe(program, home, project, run);
  const session = await launchBrowser({ viewport: { width: 1360, height: 900 } });
  let ws: WebSocket | null = null;
  try {
    const { page } = session;
    await page.addInitScript({ content: COUNT_SOCKET_MESSAGES });
    await page.goto(served.url);
    const browser = session.context.browser();
    const control = CONTROL && browser !== null ? await (await browser.newContext()).newPage() : null;
    await control?.setContent(CONTROL_PAGE);
    await page.getByRole('navigation', { name: 'Threads' }).waitFor();
    await page.waitForLoadState('networkidle');
    ws = await serveClient(served.url);
    scriptAgents(mock);
    const cdp = await session.context.newCDPSession(page);
    if (UI_PROF !== null) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    const probe = startListProbe(webSocketChannel(ws));
    const started = performance.now();
    await startFrames(page);
    if (control !== null) await startFrames(control);
    const countsBefore = await socketCounts(page);
    const streamIn = async (): Promise<void> => {
      const box = page.getByRole('textbox', { name: 'Message' });
      for (let a = 0; a < AGENTS; a++) {
        if (a > 0 || worktrees) await page.getByRole('button', { name: 'New thread', exact: true }).click();
        if (worktrees) {
          await page.getByRole('radio', { name: 'Worktree' }).click();
          await page.getByText('New worktree thread in').waitFor();
        }
        await box.fill(agentPrompt(a));
        await box.press('Enter');
        await page.waitForFunction((n) => document.querySelectorAll('.thread-row').length >= n, a + 1);
      }
      // Every agent's last request made (or one failed), then no thread running any more.
      const total = AGENTS * REQUESTS_PER_AGENT;
      const failed = page.locator('.thread-badge.is-failed');
      await guarded(
        `${program.label}: the agents' turns`,
        (async () => {
          while (mock.requests.length < total && (await failed.count()) === 0) await sleep(250);
        })(),
      );
      await page.waitForFunction(() => document.querySelectorAll('.thread-badge.is-running').length === 0, undefined, {
        timeout: GUARD_MS,
      });
      if (mock.requests.length < total || (await failed.count()) > 0)
        throw new Error(
          `many-agents: ${program.label}: ${mock.requests.length} model requests of ${total}; failed turns: ${failedTurns(home).join('; ')}`,
        );
      if (worktrees) {
        const marked = await page.locator('.thread-row .thread-worktree').count();
        if (marked < AGENTS)
          throw new Error(`many-agents: ${program.label}: ${marked} of ${AGENTS} threads were started in a worktree`);
      }
    };
    const cost = traced ? await traceFrames(cdp, streamIn, UI_PROF !== null) : (await streamIn(), null);
    if (UI_PROF !== null) {
      const { profile } = await cdp.send('Profiler.stop');
      mkdirSync(UI_PROF, { recursive: true });
      writeFileSync(
        join(UI_PROF, `page-${worktrees ? 'worktrees-' : ''}${program.label}-${Date.now()}.cpuprofile`),
        JSON.stringify(profile),
      );
    }
    const countsAfter = await socketCounts(page);
    const intervals = await stopFrames(page);
    const controlIntervals = control === null ? null : await stopFrames(control);
    await control?.context().close();
    if (UI_PROF !== null)
      writeFileSync(
        join(UI_PROF, `trace-${worktrees ? 'worktrees-' : ''}${program.label}-${Date.now()}.json`),
        JSON.stringify(cost?.mainEvents ?? []),
      );
    const seconds = (performance.now() - started) / 1000;
    const lists = await probe.stop();
    const peakRssMiB = peakRss(served.child.pid);
    const cpu = cpuSeconds(served.child.pid);
    return {
      lists,
      peakRssMiB,
      cpuSeconds: cpu,
      seconds,
      intervals,
      controlIntervals,
      cpuMs: cost?.cpuMs ?? [],
      traced,
      messages: countsAfter.messages - countsBefore.messages,
      messageChars: countsAfter.chars - countsBefore.chars,
    };
  } finally {
    ws?.close();
    await session.close();
    served.child.kill('SIGTERM');
    await exited(served.child);
    await mock.close();
  }
}
