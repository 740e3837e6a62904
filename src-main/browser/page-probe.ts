// Whether a page answers: a page whose script loops for ever holds its renderer, and every action on it would
// wait for ever; so does one still waiting for a server that never answered; one that crashed is started
// again (session.ts).
import type { Frame, Page } from 'playwright-core';

/**
 * Whether the page answers: asked before each action (the page's `crash` event may arrive after the next
 * action has started). A page busy in a script for a moment is not taken for hung: only one that does not
 * answer within `busyMs` (`[browser] busy_timeout_sec`).
 */
export async function probe(page: Page, busyMs: number): Promise<'ok' | 'crashed' | 'busy'> {
  let timer: NodeJS.Timeout | undefined;
  const busy = new Promise<'busy'>((resolve) => (timer = setTimeout(() => resolve('busy'), busyMs)));
  try {
    return await Promise.race([page.evaluate('1').then(() => 'ok' as const), busy]);
  } catch (error) {
    return /crash/i.test(error instanceof Error ? error.message : String(error)) ? 'crashed' : 'ok';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The load a page is still waiting for: `goto` timed out before any document arrived (a server that took the
 * request and never answered). Such a page does not answer scripts either, so a probe finds it busy; this
 * tells that apart from a script that loops. Kept for one page until a document arrives in it.
 */
export class StalledLoad {
  private stalled: { page: Page; url: string; forget: () => void } | null = null;

  /** `page` gave up waiting for `url`, nothing having arrived. */
  mark(page: Page, url: string): void {
    this.clear();
    const onCommit = (frame: Frame): void => {
      if (frame === page.mainFrame()) this.clear();
    };
    page.on('framenavigated', onCommit);
    this.stalled = { page, url, forget: () => page.off('framenavigated', onCommit) };
  }

  /** The URL `page` is still waiting for, or null. */
  waitingFor(page: Page): string | null {
    return this.stalled?.page === page ? this.stalled.url : null;
  }

  clear(): void {
    this.stalled?.forget();
    this.stalled = null;
  }
}

/**
 * Why a page that did not answer was closed, in words for the model (`waitingFor`: its stalled load; `busyMs`:
 * how long it was given).
 */
export function unansweringPage(url: string, waitingFor: string | null, busyMs: number): string {
  if (waitingFor !== null)
    return `the page was still waiting for ${waitingFor}: its server has not answered since \`open\` asked for it, so the page was closed; check that the server answers (\`curl -m 5 ${waitingFor}\`), then \`open\` it again`;
  return `the page ${url} did not answer for ${busyMs / 1000} s: a script in it keeps it busy (it may loop forever), so it was closed; fix the page, then \`open\` it again`;
}
