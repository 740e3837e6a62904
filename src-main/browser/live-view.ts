// The live view of a thread's browser: the page the agent's browser shows, streamed to the clients that watch
// it as JPEG frames (Chromium's screencast over CDP: a frame when the page's picture changes, not a video), and
// the person's own clicks, wheel and keys sent back into that page. The same for `weft serve` and the app:
// the panel is the renderer's, so one mechanism serves both faces. What a person does in the page goes through
// the same gate as the agent's actions (the thread's proxy and URL rules); it only adds a pointer and keys.
import type { CDPSession, Page } from 'playwright-core';
import type { WeftBrowserLiveFrame, WeftBrowserLiveInput } from '../../src-preload/protocol';
import { VIEWPORT } from './launch-settings';

/** Frames at most this often per watched page (each frame is acknowledged no sooner), ~8 a second. */
const FRAME_INTERVAL_MS = 120;
const JPEG_QUALITY = 70;
/** A screencast that could not start is tried again after this long (or at the page's next load). */
const RETRY_MS = 500;

/** One watcher (a client's panel): gets every frame, and `closed` when the browser has no page any more. */
export interface LiveViewer {
  frame(frame: Omit<WeftBrowserLiveFrame, 'threadId'>): void;
  closed(): void;
}

interface Cast {
  page: Page;
  cdp: CDPSession;
  ack: NodeJS.Timeout | null;
}

export class LiveView {
  private readonly viewers = new Set<LiveViewer>();
  private page: Page | null = null;
  private cast: Cast | null = null;
  private last: Omit<WeftBrowserLiveFrame, 'threadId'> | null = null;
  /** Starting or stopping the screencast in progress; the next change waits for it. */
  private turn: Promise<void> = Promise.resolve();

  /** Whether the browser has a page to show now. */
  get showing(): boolean {
    return this.page !== null && !this.page.isClosed();
  }

  /** The page's address, or null with no page. */
  get url(): string | null {
    return this.showing ? (this.page?.url() ?? null) : null;
  }

  /** Adds a watcher; it gets the latest frame at once (when there is one). Returns the function that removes it. */
  watch(viewer: LiveViewer): () => void {
    this.viewers.add(viewer);
    if (this.last !== null && this.showing) viewer.frame(this.last);
    this.settle();
    return () => {
      this.viewers.delete(viewer);
      this.settle();
    };
  }

  /** The browser's current page changed (null: it has none: closed, crashed, or the thread's browser ended). */
  show(page: Page | null): void {
    if (page === this.page) return;
    this.unfollow();
    this.page = page;
    this.last = null;
    if (page === null) for (const viewer of this.viewers) viewer.closed();
    else this.follow(page);
    this.settle();
  }

  /**
   * A frame says the address the page had when it came, which may be the one before a navigation that was
   * drawn just before Playwright heard of it; once the page has loaded, the latest frame goes out again with
   * the address it has now (a page that does not change after loading sends no new frame of its own).
   */
  private follow(page: Page): void {
    const loaded = (): void => {
      const last = this.last;
      if (this.page !== page || last === null || last.url === page.url()) return;
      this.last = { ...last, url: page.url() };
      for (const viewer of this.viewers) viewer.frame(this.last);
    };
    page.on('load', loaded);
    this.unfollow = () => page.off('load', loaded);
  }

  private unfollow: () => void = () => undefined;

  /** The browser ended for good: watchers are told, and nothing streams any more. */
  dispose(): Promise<void> {
    this.show(null);
    this.viewers.clear();
    this.settle();
    return this.turn;
  }

  /** Plays a person's click, wheel or keys in the page shown. */
  async input(input: WeftBrowserLiveInput): Promise<void> {
    const page = this.page;
    if (page === null || page.isClosed()) throw new Error('the browser has no page open');
    const viewport = page.viewportSize() ?? VIEWPORT;
    const pointed = 'x' in input;
    const x = clamp(pointed ? input.x : 0, viewport.width);
    const y = clamp(pointed ? input.y : 0, viewport.height);
    switch (input.type) {
      case 'click':
        await page.mouse.click(x, y, { button: input.button ?? 'left' });
        return;
      case 'down':
        await page.mouse.move(x, y);
        await page.mouse.down({ button: input.button ?? 'left' });
        return;
      case 'move':
        await page.mouse.move(x, y);
        return;
      case 'up':
        await page.mouse.move(x, y);
        await page.mouse.up({ button: input.button ?? 'left' });
        return;
      case 'wheel':
        await page.mouse.move(x, y);
        await page.mouse.wheel(input.deltaX, input.deltaY);
        return;
      case 'text':
        await page.keyboard.insertText(input.text);
        return;
      case 'key':
        await page.keyboard.press(input.key);
        return;
    }
  }

  /** Streams while someone watches a page, and not otherwise; one change at a time. */
  private settle(): void {
    this.turn = this.turn.then(async () => {
      const want = this.viewers.size > 0 && this.showing ? this.page : null;
      if (this.cast?.page === want) return;
      await this.stopCast();
      if (want !== null) await this.startCast(want);
    });
  }

  private async startCast(page: Page): Promise<void> {
    let cdp: CDPSession | null = null;
    try {
      cdp = await page.context().newCDPSession(page);
      const cast: Cast = { page, cdp, ack: null };
      this.cast = cast;
      const session = cdp;
      session.on('Page.screencastFrame', (event) => {
        if (this.cast !== cast) return;
        const frame = {
          data: event.data,
          width: Math.round(event.metadata.deviceWidth),
          height: Math.round(event.metadata.deviceHeight),
          url: page.url(),
        };
        this.last = frame;
        for (const viewer of this.viewers) viewer.frame(frame);
        // Chromium sends a few frames ahead of the acknowledgements, then waits for them: that paces the stream.
        cast.ack = setTimeout(() => {
          cast.ack = null;
          void session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined);
        }, FRAME_INTERVAL_MS);
      });
      const size = page.viewportSize() ?? VIEWPORT;
      await session.send('Page.startScreencast', {
        format: 'jpeg',
        quality: JPEG_QUALITY,
        maxWidth: size.width,
        maxHeight: size.height,
      });
    } catch {
      // The page was between documents (or closed): try again once it has loaded one, or shortly if it had
      // loaded already; `show` tells a close.
      if (this.cast?.page === page) this.cast = null;
      await cdp?.detach().catch(() => undefined);
      if (!page.isClosed()) {
        page.once('load', () => this.settle());
        setTimeout(() => this.settle(), RETRY_MS).unref();
      }
    }
  }

  private async stopCast(): Promise<void> {
    const cast = this.cast;
    this.cast = null;
    if (cast === null) return;
    if (cast.ack !== null) clearTimeout(cast.ack);
    await cast.cdp.send('Page.stopScreencast').catch(() => undefined);
    await cast.cdp.detach().catch(() => undefined);
  }
}

function clamp(value: number, size: number): number {
  return Math.min(Math.max(0, value), size - 1);
}
