// UI performance of the built renderer (dist/renderer) in headless Chromium, driven by a fake in-page
// bridge (bench/ui-fake-bridge.js) so that only the renderer is measured: opening and scrolling a thread
// of 5,000 items, streaming 2,000 agent-message deltas a second, and 10 MB of command output.
// Frame intervals come from requestAnimationFrame timestamps (the Performance API clock); they depend on
// what else the machine runs, so the main thread's CPU time per frame (from a DevTools trace, see
// ui-trace.ts) is reported beside them: that is what the page itself costs.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CDPSession, Page } from 'playwright-core';
import { launchBrowser } from '../test/support/chromium';
import { traceFrames } from './ui-trace';
import type { FrameCost } from './ui-trace';
import { percentile, type BenchRow } from './measure';

const ITEMS = 5000;
const DELTAS_PER_SECOND = 2000;
const STREAM_SECONDS = 5;
const OUTPUT_BYTES = 10 * 1024 * 1024;
/** A fast build log: 10 MB in two seconds. */
const OUTPUT_BYTES_PER_SECOND = 5 * 1024 * 1024;
const PROJECT = '/home/ada/acme-web';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src-renderer'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
};

/** Serves the built renderer with the CSP `weft serve` sends, so a CSP violation shows up here too. */
function serveRenderer(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).replace(
      /^(\.\.[/\\])+/,
      '',
    );
    const file = join(root, path === '/' ? 'index.html' : path);
    if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) {
      response.writeHead(404).end();
      return;
    }
    const host = request.headers.host ?? '127.0.0.1';
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self' ws://${host}; worker-src 'self' blob:`,
    });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}

const round = (value: number): number => Math.round(value * 10) / 10;

/** Starts recording frame intervals in the page; `stopFrames` returns them. */
export async function startFrames(page: Page): Promise<void> {
  await page.evaluate(() => {
    const record = { intervals: [] as number[], running: true };
    Object.assign(window, { __frames: record });
    let last = 0;
    const tick = (time: number): void => {
      if (!record.running) return;
      if (last > 0) record.intervals.push(time - last);
      last = time;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

export async function stopFrames(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const holder: unknown = Reflect.get(window, '__frames');
    if (typeof holder !== 'object' || holder === null) return [];
    Reflect.set(holder, 'running', false);
    const intervals: unknown = Reflect.get(holder, 'intervals');
    return Array.isArray(intervals) ? intervals.filter((n): n is number => typeof n === 'number') : [];
  });
}

interface PhaseResult {
  intervals: number[];
  cost: FrameCost;
}

/** Runs `action` while recording frame intervals (rAF) and main-thread CPU per frame (trace). */
async function measurePhase(page: Page, cdp: CDPSession, action: () => Promise<unknown>): Promise<PhaseResult> {
  await startFrames(page);
  const cost = await traceFrames(cdp, action);
  const intervals = await stopFrames(page);
  return { intervals, cost };
}

function phaseRows(label: string, phase: PhaseResult, note: string): BenchRow[] {
  const max = (values: number[]): number => round(values.reduce((a, b) => Math.max(a, b), 0));
  return [
    {
      name: `${label}: p95 frame interval`,
      value: round(percentile(phase.intervals, 95)),
      unit: 'ms',
      target: '≤ 16.7 ms',
      note: `${phase.intervals.length} frames, median ${round(percentile(phase.intervals, 50))} ms, max ${max(phase.intervals)} ms; ${note}`,
    },
    {
      name: `${label}: p95 main-thread CPU per frame`,
      value: round(percentile(phase.cost.cpuMs, 95)),
      unit: 'ms',
      target: '≤ 16.7 ms',
      note: `median ${round(percentile(phase.cost.cpuMs, 50))} ms, max ${max(phase.cost.cpuMs)} ms over ${phase.cost.frames} frames`,
    },
  ];
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  const root = repoRoot();
  const rendererDir = join(root, 'dist', 'renderer');
  if (!existsSync(join(rendererDir, 'index.html')))
    throw new Error('dist/renderer is not built: run `npm run build` first.');
  const bridge = readFileSync(join(root, 'bench', 'ui-fake-bridge.js'), 'utf8');
  const { server, url } = await serveRenderer(rendererDir);
  const session = await launchBrowser({ viewport: { width: 1360, height: 900 } });
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  try {
    const { page } = session;
    await page.addInitScript({
      content: `window.__weftFake = ${JSON.stringify({ scenario: 'bench', items: ITEMS, cwd: PROJECT })};`,
    });
    await page.addInitScript({ content: bridge });
    await page.goto(`${url}/?cwd=${encodeURIComponent(PROJECT)}`);
    const threadButton = page
      .getByRole('navigation', { name: 'Threads' })
      .getByRole('button', { name: `Bench thread (${ITEMS} items)`, exact: true });
    await threadButton.waitFor();
    // A person clicks a thread a moment after the window shows: let start-up settle first (the page
    // fetches and evaluates the chunks its rows use, Monaco and xterm, when it is idle).
    await page.waitForLoadState('networkidle');
    await page.locator('html[data-warm]').waitFor({ state: 'attached' });
    await page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 5000 })));

    // Open the 5,000-item thread: time from the click to the first frame showing its rows, and to the
    // first task after that frame (the page answers input again).
    const cdp = await session.context.newCDPSession(page);
    let open = { paint: 0, interactive: 0, rows: 0 };
    const openCost = await traceFrames(cdp, async () => {
      open = await page.evaluate((name) => {
        const button = [...document.querySelectorAll<HTMLElement>('nav[aria-label="Threads"] button')].find((b) =>
          b.textContent?.includes(name),
        );
        if (button === undefined) throw new Error(`no thread button ${name}`);
        return new Promise<{ paint: number; interactive: number; rows: number }>((resolve) => {
          const start = performance.now();
          const check = (): void => {
            const rendered = document.querySelectorAll('.conversation .vrow').length;
            if (rendered === 0) {
              requestAnimationFrame(check);
              return;
            }
            const paint = performance.now() - start;
            setTimeout(() => resolve({ paint, interactive: performance.now() - start, rows: rendered }), 0);
          };
          button.click();
          requestAnimationFrame(check);
        });
      }, `Bench thread (${ITEMS} items)`);
    });
    rows.push({
      name: `Open a ${ITEMS}-item thread: first paint`,
      value: round(open.paint),
      unit: 'ms',
      note: `${open.rows} rows mounted of ${ITEMS + ITEMS / 10}`,
    });
    rows.push({
      name: `Open a ${ITEMS}-item thread: interactive`,
      value: round(open.interactive),
      unit: 'ms',
      target: '≤ 250 ms',
      note: `the newest 100 turns, as Weft's server sends them; main-thread CPU meanwhile: ${round(openCost.cpuMs.reduce((a, b) => a + b, 0))} ms`,
    });

    // The thread opened on its newest turns (as Weft's server sends them); reaching the top of the list
    // loads the turns before them, 50 at a time. Each page is timed from the scroll to the top to the
    // frame showing it (the list grows above the view), until the first turn is in; the scroll below
    // then runs over all the items.
    const pages = await page.evaluate(async () => {
      const list = document.querySelector('.conversation .vlist');
      if (!(list instanceof HTMLElement)) throw new Error('no conversation list');
      const frame = (): Promise<void> => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
      const control = (): boolean =>
        [...list.querySelectorAll<HTMLButtonElement>('button')].some((b) =>
          b.textContent?.includes('Show earlier turns'),
        );
      const times: number[] = [];
      for (let pagesLoaded = 0; pagesLoaded < 100; pagesLoaded++) {
        const height = list.scrollHeight;
        const start = performance.now();
        list.scrollTop = 0;
        // The control mounts at the top and starts the load; done when the list has grown by a page (rows
        // measured as they mount change the height by far less).
        const grown = (): boolean => list.scrollHeight > height + 5000;
        let frames = 0;
        while (!grown() && frames < 600) {
          await frame();
          frames += 1;
          if (frames > 30 && !control()) break;
        }
        if (!grown()) break;
        times.push(performance.now() - start);
      }
      return { pages: times.length, first: times[0] ?? 0, slowest: times.reduce((a, t) => Math.max(a, t), 0) };
    });
    rows.push({
      name: 'Older turns on reaching the top (50 turns, 500 items): scroll to the frame showing them',
      value: round(pages.first),
      unit: 'ms',
      note: `${pages.pages} pages loaded to reach the first turn; slowest ${round(pages.slowest)} ms`,
    });

    // A fast fling: 200 px a frame (12,000 px/s) for 300 frames, upwards from the end, through rows never
    // shown before (each mounts, renders its Markdown, and unmounts again).
    await page.evaluate(() => {
      const list = document.querySelector('.conversation .vlist');
      if (list instanceof HTMLElement) list.scrollTop = list.scrollHeight;
    });
    const scroll = await measurePhase(page, cdp, () =>
      page.evaluate(
        () =>
          new Promise<void>((resolve) => {
            const list = document.querySelector('.conversation .vlist');
            if (!(list instanceof HTMLElement)) throw new Error('no conversation list');
            let frames = 0;
            const step = (): void => {
              list.scrollTop = Math.max(0, list.scrollTop - 200);
              frames += 1;
              if (list.scrollTop <= 0 || frames >= 300) resolve();
              else requestAnimationFrame(step);
            };
            requestAnimationFrame(step);
          }),
      ),
    );
    rows.push(
      ...phaseRows(
        `Scroll the ${ITEMS}-item thread, 200 px a frame for 5 s`,
        scroll,
        'rows mount and unmount every frame',
      ),
    );

    // Stream 2,000 deltas a second into a new turn of the open thread.
    await page.evaluate(() => {
      const list = document.querySelector('.conversation .vlist');
      if (list instanceof HTMLElement) list.scrollTop = list.scrollHeight;
    });
    let streamed = '';
    const stream = await measurePhase(page, cdp, async () => {
      streamed = await page.evaluate(
        ([count, rate]) => {
          const control: unknown = Reflect.get(window, '__weftFakeControl');
          const start: unknown =
            typeof control === 'object' && control !== null ? Reflect.get(control, 'streamDeltas') : undefined;
          if (typeof start !== 'function') throw new Error('the fake bridge is not loaded');
          return Promise.resolve(start('thr_bench', count, rate)).then((result: unknown) => JSON.stringify(result));
        },
        [DELTAS_PER_SECOND * STREAM_SECONDS, DELTAS_PER_SECOND] as const,
      );
    });
    const shown = await page.evaluate(
      () => [...document.querySelectorAll('.conversation .cell-agent')].at(-1)?.textContent?.length ?? 0,
    );
    rows.push(
      ...phaseRows(
        `Stream ${DELTAS_PER_SECOND.toLocaleString('en')} deltas/s for ${STREAM_SECONDS} s into the open thread`,
        stream,
        `${round((DELTAS_PER_SECOND * STREAM_SECONDS) / Math.max(1, stream.intervals.length))} deltas applied per frame`,
      ),
    );
    notes.push(`Stream run: ${streamed}; the streamed message shows ${shown} characters at the end.`);

    // 10 MB of command output, 64 KB per delta, at 5 MB/s.
    let output = '';
    const big = await measurePhase(page, cdp, async () => {
      output = await page.evaluate(
        ([bytes, rate]) => {
          const control: unknown = Reflect.get(window, '__weftFakeControl');
          const start: unknown =
            typeof control === 'object' && control !== null ? Reflect.get(control, 'streamOutput') : undefined;
          if (typeof start !== 'function') throw new Error('the fake bridge is not loaded');
          return Promise.resolve(start('thr_bench', bytes, 64 * 1024, rate)).then((result: unknown) =>
            JSON.stringify(result),
          );
        },
        [OUTPUT_BYTES, OUTPUT_BYTES_PER_SECOND] as const,
      );
    });
    // How long a click would wait right after the flood: two frames and one task.
    const drained = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const start = performance.now();
          requestAnimationFrame(() =>
            requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0)),
          );
        }),
    );
    rows.push(
      ...phaseRows(
        '10 MB of command output at 5 MB/s in 64 KB deltas',
        big,
        `${output}; the first frames include loading the output's terminal parser`,
      ),
    );
    rows.push({
      name: '10 MB of command output: input delay right after it',
      value: round(drained),
      unit: 'ms',
      note: 'two frames + one task after the last delta (≥ 33 ms at 60 Hz)',
    });
    if (session.errors.length > 0) notes.push(`Page errors: ${session.errors.slice(0, 5).join(' | ')}`);
    notes.push(
      'Chromium headless (--disable-gpu), 1360×900, light theme; frames are paced at 60 Hz, so 16.7 ms is the floor of a frame interval.',
    );
    notes.push(
      `Load average of the machine when the run ended: ${loadAverage()} (2 cores, shared): frame intervals stretch with it, main-thread CPU per frame does not.`,
    );
  } finally {
    await session.close();
    server.close();
  }
  return { title: 'Renderer (headless Chromium)', rows, notes };
}
