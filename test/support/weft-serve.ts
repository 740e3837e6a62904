// End-to-end harness: a mock model, a temp workspace and Weft home, `weft serve` (the built CLI and
// renderer) on a free port, and a fresh browser context (in the headless Chromium the worker process
// shares, test/support/chromium.ts) on the page it prints. All but that browser is torn down by
// `close()`, which also saves a screenshot of the end state under test-results/e2e/.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { openSession } from './chromium';
import type { BrowserSession } from './chromium';
import { startMockResponsesServer } from './mock-responses-server';
import type { MockResponsesServer } from './mock-responses-server';
import { makeTempWorkspace, makeWeftHome } from './workspace';
import type { TempWorkspace, WeftHome } from './workspace';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'e2e');

export interface E2eOptions {
  /** Files of the project folder the UI opens on. */
  files?: Record<string, string>;
  /** config.toml `approval_policy` (default "untrusted": every patch and every unsafe command asks). */
  approvalPolicy?: 'untrusted' | 'on-request' | 'on-failure' | 'never';
  /** config.toml `sandbox_mode` (default "danger-full-access": commands run without needing bwrap). */
  sandbox?: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Variables for `weft serve` on top of the defaults; `undefined` removes one (e.g. MOCK_API_KEY). */
  serveEnv?: Record<string, string | undefined>;
  /** Extra `weft serve` arguments. */
  serveArgs?: string[];
  /** Start `weft serve` in the project folder without `--cd`, as a person there would. */
  noCd?: boolean;
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  /** The page's `prefers-reduced-motion` (default "reduce", see openSession). */
  reducedMotion?: 'reduce' | 'no-preference';
  /** Files to create in WEFT_HOME before the server starts (e.g. rules/default.toml). */
  homeFiles?: Record<string, string>;
  /** TOML appended to the generated config.toml (e.g. `[mcp_servers.NAME]` tables). */
  extraConfig?: string;
  /** Runs once the home and the project exist, before `weft serve` starts (e.g. to save threads there). */
  beforeServe?: (dirs: { home: string; cwd: string }) => Promise<void>;
  /** Runs once the browser context exists, before the page loads (init scripts, permissions). */
  beforeLoad?: (session: BrowserSession, url: string) => Promise<void>;
}

export interface E2e {
  mock: MockResponsesServer;
  workspace: TempWorkspace;
  home: WeftHome;
  /** The address `weft serve` printed (with its token and the project). */
  url: string;
  browser: BrowserSession;
  page: Page;
  /** Saves `test-results/e2e/<name>.png`. */
  screenshot(name: string): Promise<void>;
  /** The process id of the `weft serve` running now. */
  servePid(): number;
  /** Stops `weft serve` (the page stays open). */
  stopServe(): Promise<void>;
  /** Starts `weft serve` again on the same home and project with these arguments; resolves with its URL. */
  startServeAgain(args: string[]): Promise<string>;
  close(): Promise<void>;
}

function mockConfig(url: string, options: E2eOptions): string {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    `approval_policy = "${options.approvalPolicy ?? 'untrusted'}"`,
    `sandbox_mode = "${options.sandbox ?? 'danger-full-access'}"`,
    '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${url}"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    '',
    options.extraConfig ?? '',
  ].join('\n');
}

/**
 * Starts `weft serve` and resolves with the URL it prints; rejects with its stderr if it exits first.
 * WEFT_E2E_CLI names another entry script taking the same arguments (e.g. a build under test elsewhere).
 */
export function startServe(
  cwd: string,
  home: string,
  extra: Pick<E2eOptions, 'serveEnv' | 'serveArgs' | 'noCd'> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const cli = process.env.WEFT_E2E_CLI ?? join(ROOT, 'bin', 'weft.js');
  const cliBuilt = process.env.WEFT_E2E_CLI !== undefined || existsSync(join(ROOT, 'dist', 'cli', 'cli.js'));
  if (!cliBuilt || !existsSync(join(ROOT, 'dist', 'renderer', 'index.html'))) {
    throw new Error('The e2e tests need the built CLI and renderer: run `npm run build` first.');
  }
  const env: Record<string, string | undefined> = {
    ...process.env,
    WEFT_HOME: home,
    MOCK_API_KEY: 'x',
    ...extra.serveEnv,
  };
  const args = extra.serveArgs ?? ['--port', '0', '--token', 'e2e-token'];
  const child = spawn(process.execPath, [cli, 'serve', ...(extra.noCd === true ? [] : ['--cd', cwd]), ...args], {
    cwd,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error('weft serve: no stdout pipe');
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stdout });
    const onExit = (code: number | null): void =>
      reject(new Error(`weft serve exited (${String(code)}) before printing its URL:\n${stderr}`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      const match = /^Weft is serving (\S+)/.exec(line);
      if (match?.[1] === undefined) return;
      child.off('exit', onExit);
      lines.close();
      resolve({ child, url: match[1] });
    });
  });
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function startE2e(options: E2eOptions = {}): Promise<E2e> {
  const mock = await startMockResponsesServer();
  const workspace = await makeTempWorkspace(options.files ?? { 'README.md': '# Demo project\n' });
  const home = await makeWeftHome(mockConfig(mock.url, options));
  for (const [path, text] of Object.entries(options.homeFiles ?? {})) {
    await mkdir(dirname(join(home.dir, path)), { recursive: true });
    await writeFile(join(home.dir, path), text);
  }
  let child: ChildProcess | null = null;
  let browser: BrowserSession | null = null;
  try {
    await options.beforeServe?.({ home: home.dir, cwd: workspace.dir });
    // The server and the browser context start side by side (each takes a few hundred milliseconds).
    const [serving, opening] = await Promise.allSettled([
      startServe(workspace.dir, home.dir, options),
      openSession({
        ...(options.viewport === undefined ? {} : { viewport: options.viewport }),
        ...(options.colorScheme === undefined ? {} : { colorScheme: options.colorScheme }),
        ...(options.reducedMotion === undefined ? {} : { reducedMotion: options.reducedMotion }),
      }),
    ]);
    if (serving.status === 'fulfilled') child = serving.value.child;
    if (opening.status === 'fulfilled') browser = opening.value;
    if (serving.status === 'rejected') throw serving.reason;
    if (opening.status === 'rejected') throw opening.reason;
    const served = serving.value;
    const session = opening.value;
    const { page } = session;
    page.setDefaultTimeout(20_000);
    await options.beforeLoad?.(session, served.url);
    await page.goto(served.url);
    await page.getByRole('navigation', { name: 'Threads' }).waitFor();
    let server = served.child;
    let closed = false;
    const e2e: E2e = {
      mock,
      workspace,
      home,
      url: served.url,
      browser: session,
      page,
      async screenshot(name) {
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
      },
      servePid() {
        if (server.pid === undefined) throw new Error('weft serve has no process id (it failed to start)');
        return server.pid;
      },
      async stopServe() {
        await stop(server);
      },
      async startServeAgain(args) {
        await stop(server);
        const again = await startServe(workspace.dir, home.dir, { ...options, serveArgs: args });
        server = again.child;
        return again.url;
      },
      async close() {
        if (closed) return;
        closed = true;
        await session.close();
        await stop(server);
        await mock.close();
        await workspace.cleanup();
        await home.cleanup();
      },
    };
    // Whatever the test does, it ends closed; a failed test leaves a screenshot of where it stood.
    onTestFinished(async (context) => {
      if (context.task.result?.state === 'fail')
        await e2e.screenshot(`failed-${context.task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
      await e2e.close();
    });
    return e2e;
  } catch (error) {
    await browser?.close();
    if (child !== null) await stop(child);
    await mock.close();
    await workspace.cleanup();
    await home.cleanup();
    throw error;
  }
}

/** Types `text` into the composer and sends it with Enter. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The conversation of the open thread (its rows), to find text there and not in the sidebar or header. */
export function conversation(page: Page): Locator {
  return page.getByRole('region', { name: 'Conversation' });
}

export const SCREENSHOT_SIZES = [
  { width: 1400, height: 900 },
  { width: 900, height: 700 },
] as const;

/** Resolves after the page has drawn `count` frames (animation-frame callbacks). */
export async function frames(page: Page, count: number): Promise<void> {
  await page.evaluate(
    (n) =>
      new Promise<void>((resolve) => {
        let left = n;
        const step = (): void => {
          left -= 1;
          if (left <= 0) resolve();
          else requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
      }),
    count,
  );
}

/**
 * Saves `<name>-1400x900.png` and `<name>-900x700.png` of the page as it is now (the window resized for
 * each, then put back), waiting for layout to settle after each resize. `show`, when given, runs after
 * each resize, before the shot (to wheel what the shot is of back into view).
 */
export async function screenshotSizes(e2e: E2e, name: string, show?: () => Promise<void>): Promise<void> {
  const { page } = e2e;
  const before = page.viewportSize();
  for (const size of SCREENSHOT_SIZES) {
    await page.setViewportSize(size);
    await frames(page, 2);
    // What the shot is of, brought back into view (with the wheel) when the smaller window hid it.
    await show?.();
    await e2e.screenshot(`${name}-${size.width}x${size.height}`);
  }
  if (before !== null) await page.setViewportSize(before);
}
