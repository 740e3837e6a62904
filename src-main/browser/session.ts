// One thread's browser: a headless Chromium with a fresh temporary profile (no user cookies), started at the
// thread's first browser action and ended (profile deleted) when the thread ends or the model closes it.
// Every request beyond loopback goes through the thread's proxy (proxy.ts), which applies url-policy.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, CDPSession, Frame, Page, Route } from 'playwright-core';
import { errorMessage } from '../util/errors';
import { checkFileUrl } from './file-policy';
import { OriginQuestions, type OriginAsker } from './origin-questions';
import { PageLog } from './page-log';
import { probe, StalledLoad, unansweringPage } from './page-probe';
import { killProfileProcesses } from './processes';
import { startBrowserProxy, type BrowserProxy } from './proxy';
import { checkUrl, type UrlRules } from './url-policy';
import type { LiveView } from './live-view';
import { CHROMIUM_FLAGS, MAX_PAGES, POPUP_CAP_SCRIPT, VIEWPORT, type BrowserTimeouts } from './launch-settings';

/** A crashed browser is started again this many times per thread; after that the crash is reported. */
const MAX_RESTARTS = 1;

export interface BrowserSessionOptions {
  executable: string;
  /** The rules of the moment (the thread's workspace and network setting can change between turns). */
  rules: () => Omit<UrlRules, 'approvedOrigins'>;
  /**
   * Asks the user about an origin during a browser call; resolves true when allowed. Null: no call runs.
   * The same function for the whole of one call.
   */
  asker: () => OriginAsker | null;
  /** How long a load, an action and a page's answer may take (`[browser]` in config.toml). */
  timeouts: BrowserTimeouts;
  /** Told which page the browser shows, for the people watching it live. */
  live?: LiveView;
}

interface Running {
  context: BrowserContext;
  profile: string;
  proxy: BrowserProxy;
}

export class BrowserSession {
  readonly log = new PageLog();
  private readonly origins: OriginQuestions;
  private running: Promise<Running> | null = null;
  /**
   * The context of the browser running now. A browser that was stopped (after a crash) still reports its
   * pages' crashes and its own close for a while, late on a busy machine: only this one's count.
   */
  private liveContext: BrowserContext | null = null;
  private currentPage: Page | null = null;
  private cdp: { page: Page; session: CDPSession } | null = null;
  private crashed = false;
  private restarts = 0;
  /** Why the gate refused the latest requests, by URL (the console shows the reason beside the failure). */
  private readonly refusals = new Map<string, string>();
  /** Why the page was taken off a page it may not show (set by the navigation guard). */
  private pageRefusal: string | null = null;
  /** The guard taking the page off a refused page; the next navigation waits for it. */
  private leaving: Promise<void> = Promise.resolve();
  /** A load of the current page that timed out with nothing arrived (the page still waits for it). */
  private readonly stalled = new StalledLoad();
  private disposed = false;
  readonly timeouts: BrowserTimeouts;
  constructor(private readonly options: BrowserSessionOptions) {
    this.origins = new OriginQuestions(options.asker);
    this.timeouts = options.timeouts;
  }

  /** The page actions run on (null: none yet, or it was closed); the live view follows it. */
  private get current(): Page | null {
    return this.currentPage;
  }

  private set current(page: Page | null) {
    this.currentPage = page;
    if (page !== null)
      page.once('close', () => this.options.live?.show(this.currentPage === page ? null : this.currentPage));
    this.options.live?.show(page);
  }

  /** The page actions run on, started (or restarted after a crash) as needed; `notes` says what happened. */
  async page(notes: string[], options: { replaceBusy: boolean } = { replaceBusy: false }): Promise<Page> {
    if (this.disposed) throw new Error("the thread's browser was shut down with the thread");
    if (!this.crashed && this.current !== null && !this.current.isClosed()) {
      const state = await probe(this.current, this.timeouts.busyMs);
      if (state === 'crashed') this.crashed = true;
      else if (state === 'busy') {
        const busy = await this.closeBusy();
        if (!options.replaceBusy) throw new Error(busy);
        notes.push(`${busy[0]?.toUpperCase() ?? ''}${busy.slice(1)}.`);
      }
    }
    if (this.crashed) {
      if (this.restarts >= MAX_RESTARTS)
        throw new Error(
          'the browser crashed again after it was restarted; it is not restarted any more in this thread (call `close`, then `open` to try once more)',
        );
      const lastUrl = this.current?.url() ?? null;
      this.restarts++;
      await this.stop();
      notes.push('The browser had crashed and was started again with a fresh profile.');
      const page = await this.page(notes);
      if (lastUrl !== null && lastUrl !== 'about:blank') await this.navigate(lastUrl).catch(() => undefined);
      return page;
    }
    const running = await this.start();
    if (this.current === null || this.current.isClosed()) {
      this.current = running.context.pages().at(-1) ?? (await running.context.newPage());
    }
    return this.current;
  }

  /** A CDP session of the current page (screenshots at a chosen scale). */
  async cdpOf(page: Page): Promise<CDPSession> {
    if (this.cdp?.page === page) return this.cdp.session;
    const running = await this.start();
    const session = await running.context.newCDPSession(page);
    this.cdp = { page, session };
    return session;
  }

  /** Loads `url` in the current page; the error says why when the gate refused it or it did not load in time. */
  async navigate(url: string): Promise<{ status: number | null }> {
    const page = this.current;
    if (page === null) throw new Error('no page is open');
    await this.leaving;
    this.pageRefusal = null;
    this.stalled.clear();
    // Whether a document arrived: a load that times out after it may be a script looping for ever.
    let committed = false;
    const onCommit = (frame: Frame): void => {
      if (frame === page.mainFrame()) committed = true;
    };
    page.on('framenavigated', onCommit);
    try {
      const response = await page.goto(url, { timeout: this.timeouts.loadMs, waitUntil: 'load' });
      // A redirect the gate refused: the proxy's refusal was shown, and the guard left it.
      // Read again: the navigation guard may have set it while `goto` ran.
      const refused: string | null = this.readPageRefusal();
      if (refused !== null) throw new RefusedError(refused);
      return { status: response?.status() ?? null };
    } catch (error) {
      if (error instanceof RefusedError) throw error;
      const refusal = this.refusals.get(url);
      if (refusal !== undefined) throw new Error(refusal, { cause: error });
      if (error instanceof Error && error.name === 'TimeoutError') {
        if (committed && (await probe(page, this.timeouts.busyMs)) === 'busy')
          throw new Error(
            `${url} did not finish loading within ${this.timeouts.loadMs / 1000} s; ${await this.closeBusy()}`,
            {
              cause: error,
            },
          );
        if (!committed) this.stalled.mark(page, url);
        throw new Error(
          `${url} did not finish loading within ${this.timeouts.loadMs / 1000} s (the server may be slow or hung); take a screenshot or read the page to see what arrived`,
          { cause: error },
        );
      }
      if (error instanceof Error && /Download is starting/.test(error.message))
        throw new Error(`${url} is a download, and the browser refuses downloads (read the file with a command)`, {
          cause: error,
        });
      throw new Error(`could not open ${url}: ${firstLine(errorMessage(error))}`, { cause: error });
    } finally {
      page.off('framenavigated', onCommit);
    }
  }

  /**
   * Why an action that timed out did: a page that went busy in a script after the check before the action
   * (a loop started by a timer once the page had loaded) is closed, and this says so; null for any other
   * failure, or a page that still answers.
   */
  async busyAfterTimeout(error: unknown): Promise<string | null> {
    if (!(error instanceof Error) || error.name !== 'TimeoutError') return null;
    const page = this.current;
    if (page === null || page.isClosed() || (await probe(page, this.timeouts.busyMs)) !== 'busy') return null;
    return this.closeBusy();
  }

  /**
   * Closes the current page, which does not answer: busy in a script (a loop that never ends holds its
   * renderer, and every action on it would wait for ever), or still waiting for a server that never answered
   * its `open`; says which in words for the model. The next action starts on a blank page.
   */
  async closeBusy(): Promise<string> {
    const page = this.current;
    const url = page?.url() ?? 'the page';
    const waitingFor = page === null ? null : this.stalled.waitingFor(page);
    this.stalled.clear();
    this.current = null;
    this.cdp = null;
    await page?.close({ runBeforeUnload: false }).catch(() => undefined);
    return unansweringPage(url, waitingFor, this.timeouts.busyMs);
  }

  private readPageRefusal(): string | null {
    return this.pageRefusal;
  }

  /** Remembers that the user let the browser reach `origin` in this thread. */
  approveOrigin(origin: string): void {
    this.origins.approve(origin);
  }

  /** What the URL rules say about `url` now. */
  verdict(url: string): ReturnType<typeof checkUrl> {
    return checkUrl(url, { ...this.options.rules(), approvedOrigins: this.origins.approved });
  }

  /** Ends the browser (the model's `close`); the next action starts a fresh one. */
  async close(): Promise<void> {
    this.restarts = 0;
    await this.stop();
  }

  /** Ends the browser for good: the thread unloads or the host shuts down. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
  }

  private start(): Promise<Running> {
    this.running ??= this.launch().catch((error: unknown) => {
      this.running = null;
      throw new Error(
        `the browser (${this.options.executable}) could not be started: ${firstLine(errorMessage(error))}`,
      );
    });
    return this.running;
  }

  private async stop(): Promise<void> {
    const running = this.running;
    this.running = null;
    this.liveContext = null;
    this.current = null;
    this.cdp = null;
    this.stalled.clear();
    this.crashed = false;
    if (running === null) return;
    const r = await running.catch(() => null);
    if (r === null) return;
    // A launch that ended after this stop began set it again.
    if (this.liveContext === r.context) this.liveContext = null;
    await r.context.close().catch(() => undefined);
    await killProfileProcesses(r.profile);
    await r.proxy.close();
    await rm(r.profile, { recursive: true, force: true, maxRetries: 3 });
  }

  private async launch(): Promise<Running> {
    const profile = await mkdtemp(join(tmpdir(), 'weft-browser-'));
    const proxy = await startBrowserProxy((url) => this.gate(url));
    try {
      // Loaded at the first browser action: threads that never browse never pay for it.
      const { chromium } = await import('playwright-core');
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: this.options.executable,
        headless: true,
        args: [...CHROMIUM_FLAGS, `--proxy-server=${proxy.url}`],
        viewport: VIEWPORT,
        acceptDownloads: false,
        // Playwright's own handlers would kill the browser on SIGINT/SIGTERM before the thread disposes it.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      await context.route('**/*', (route) => this.route(route));
      context.on('request', (request) => {
        if (request.redirectedFrom() === null) return;
        const verdict = this.verdict(request.url());
        if (verdict.kind === 'ask') this.origins.redirected(verdict.origin);
      });
      // A page opening popups in a loop: each document may open MAX_PAGES, then window.open returns null
      // (the page count cap below closes what still gets through, e.g. links with target=_blank).
      await context.addInitScript(POPUP_CAP_SCRIPT);
      context.setDefaultTimeout(this.timeouts.actionMs);
      context.setDefaultNavigationTimeout(this.timeouts.loadMs);
      const running: Running = { context, profile, proxy };
      for (const page of context.pages()) this.watch(page);
      context.on('page', (page) => {
        if (context.pages().length > MAX_PAGES) {
          this.log.add({
            kind: 'popup',
            level: 'popup',
            text: `a page the site opened was closed: at most ${MAX_PAGES} pages may be open`,
          });
          void page.close().catch(() => undefined);
          return;
        }
        this.watch(page);
        this.current = page;
      });
      context.on('close', () => {
        if (this.liveContext === context) this.crashed = true;
      });
      this.liveContext = context;
      return running;
    } catch (error) {
      await proxy.close();
      await rm(profile, { recursive: true, force: true });
      throw error;
    }
  }

  private watch(page: Page): void {
    page.on('console', (message) => this.log.add({ kind: 'console', level: message.type(), text: message.text() }));
    page.on('pageerror', (error) => this.log.add({ kind: 'pageerror', level: 'pageerror', text: error.message }));
    page.on('requestfailed', (request) =>
      this.log.add({
        kind: 'request',
        level: 'failed request',
        text: `${request.method()} ${request.url()}: ${this.refusals.get(request.url()) ?? request.failure()?.errorText ?? 'failed'}`,
      }),
    );
    page.on('response', (response) => {
      if (response.status() >= 400)
        this.log.add({
          kind: 'request',
          level: 'failed request',
          text: `${response.request().method()} ${response.url()}: ${this.refusals.get(response.url()) ?? `HTTP ${response.status()}`}`,
        });
    });
    page.on('download', (download) =>
      this.log.add({
        kind: 'download',
        level: 'download refused',
        text: `${download.url()} (downloads are not allowed)`,
      }),
    );
    page.on('crash', () => {
      if (page.context() !== this.liveContext) return;
      this.crashed = true;
      this.log.add({ kind: 'crash', level: 'crash', text: `the page ${page.url()} crashed` });
    });
    page.on('framenavigated', (frame) => {
      // A last guard for what the proxy never sees (file: pages linking to files outside the workspace).
      if (frame !== page.mainFrame()) return;
      // Chromium's own error page, shown for a navigation that was refused or failed: it reaches nothing.
      if (frame.url().startsWith('chrome-error:')) return;
      const verdict = this.verdict(frame.url());
      if (verdict.kind === 'allow') return;
      const reason =
        verdict.kind === 'refuse'
          ? verdict.reason
          : `refused to open ${frame.url()}: the user did not allow the browser to reach ${verdict.origin}`;
      this.pageRefusal = reason;
      this.log.add({ kind: 'request', level: 'refused', text: reason });
      this.leaving = page.goto('about:blank').then(
        () => undefined,
        () => undefined,
      );
    });
  }

  /**
   * The proxy's question: null allows the request, else the reason it is refused. An origin not yet allowed
   * is asked about when a page was just redirected there during a browser call (request interception never
   * sees a redirect's next hop), and refused otherwise: the browser's own background traffic goes through
   * the proxy too, and nobody is asked about it.
   */
  private async gate(url: string): Promise<string | null> {
    const verdict = this.verdict(url);
    if (verdict.kind === 'allow') return null;
    if (verdict.kind === 'ask' && (await this.origins.allowRedirect(verdict.origin))) return null;
    const reason =
      verdict.kind === 'refuse'
        ? verdict.reason
        : `refused to open ${url}: the user has not allowed the browser to reach ${verdict.origin} (open a URL there to be asked)`;
    this.refuse(url, reason);
    return reason;
  }

  /** Remembers why `url` was refused (the failed `open` and `console` say it). */
  private refuse(url: string, reason: string): void {
    this.refusals.set(url, reason);
    if (this.refusals.size > 100) this.refusals.delete(this.refusals.keys().next().value ?? '');
  }

  /** A request of a page: an origin that needs the user's approval is asked about during a browser call. */
  private async route(route: Route): Promise<void> {
    const url = route.request().url();
    const verdict = this.verdict(url);
    if (verdict.kind === 'allow' && url.startsWith('file:')) {
      // The text of the URL is in the workspace: refused still when it leads out of it or is no plain file.
      const refused = await checkFileUrl(url, this.options.rules().workspace);
      if (refused !== null) {
        this.refuse(url, refused);
        this.log.add({ kind: 'request', level: 'refused', text: refused });
        const request = route.request();
        if (request.isNavigationRequest() && request.frame() === this.current?.mainFrame()) this.pageRefusal = refused;
        // Answered rather than aborted: an aborted navigation's error page would commit later and cut the next one.
        await route
          .fulfill({ status: 403, contentType: 'text/plain; charset=utf-8', body: refused })
          .catch(() => undefined);
        return;
      }
    }
    if (verdict.kind === 'ask') await this.origins.allow(verdict.origin);
    // The proxy decides, with the origin now allowed or not.
    await route.fallback().catch(() => undefined);
  }
}

class RefusedError extends Error {}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
