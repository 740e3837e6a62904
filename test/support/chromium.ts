// Headless Chromium for e2e tests and UI benchmarks: the Debian `chromium` driven by playwright-core,
// with the flags that work on these machines (docs: ENVIRONMENT.md) and a fresh profile per launch.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../../src-main/browser/launch-settings';

/**
 * The flags the browser tool starts Chromium with: quiet, self-contained, no sync or background traffic, and
 * no omnibox popup WebUI (which took a renderer process and ~0.6 s of CPU for every test's context).
 */
const CHROMIUM_ARGS = CHROMIUM_FLAGS;

/** `command -v chromium`, or a clear error naming the fix. */
export function chromiumPath(): string {
  try {
    const path = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], {
      encoding: 'utf8',
    }).trim();
    if (path !== '') return path;
  } catch {
    // Reported below.
  }
  throw new Error(
    'Chromium is not installed: run `apt-get install -y chromium` (the e2e tests and UI benchmarks drive it).',
  );
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

export interface LaunchOptions {
  colorScheme?: 'light' | 'dark';
  /**
   * `prefers-reduced-motion` (openSession's default "reduce": spinners stand still, so Chromium does not
   * draw a frame 60 times a second for as long as one shows; what they stand for is in the words beside).
   */
  reducedMotion?: 'reduce' | 'no-preference';
  viewport?: { width: number; height: number };
  /** Extra Chromium flags. */
  args?: string[];
}

/** Errors the page reports, collected for a session. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

let shared: Promise<Browser> | null = null;

/**
 * The one headless browser of this process, started on first use and again after it went away (crashed):
 * where test files share a worker process (the e2e project's `isolate: false`), their tests share it too.
 * It ends with the process: playwright-core ends the browsers it started when its process exits, and
 * Chromium ends when its pipe to this process closes.
 */
function sharedBrowser(): Promise<Browser> {
  if (shared !== null) return shared;
  const launching = chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  shared = launching;
  const forget = (): void => {
    if (shared === launching) shared = null;
  };
  void launching.then((browser) => browser.on('disconnected', forget), forget);
  return launching;
}

/**
 * A fresh browser context (its own cookies, storage and cache, like a new profile) in the shared browser:
 * starting and ending Chromium costs about 0.7 s of CPU, a context a few milliseconds. `close()` closes
 * the context.
 */
export async function openSession(options: Omit<LaunchOptions, 'args'> = {}): Promise<BrowserSession> {
  const browser = await sharedBrowser();
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1360, height: 860 },
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: options.reducedMotion ?? 'reduce',
  });
  const page = await context.newPage();
  return { context, page, errors: watchErrors(page), close: () => context.close() };
}

/** How many contexts of openSession are open now (none when the shared browser is not running). */
export async function openSessionCount(): Promise<number> {
  const browser = shared === null ? null : await shared.catch(() => null);
  return browser?.isConnected() === true ? browser.contexts().length : 0;
}

/** A fresh headless browser with its own temporary profile, removed again by `close()`. */
export async function launchBrowser(options: LaunchOptions = {}): Promise<BrowserSession> {
  const profile = await mkdtemp(join(tmpdir(), 'weft-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    viewport: options.viewport ?? { width: 1360, height: 860 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    errors: watchErrors(page),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
