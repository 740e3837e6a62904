// Whether a page answers: a page whose script loops for ever holds its renderer, and every action on it would
// wait for ever; one that crashed is started again (session.ts).
import type { Page } from 'playwright-core';

/** A page that does not answer a trivial script for this long is taken as hung in a script, and closed. */
export const BUSY_LIMIT_MS = 5_000;

/**
 * Whether the page answers: asked before each action (the page's `crash` event may arrive after the next
 * action has started). A page busy in a script for a moment is not taken for hung: only one that does not
 * answer within BUSY_LIMIT_MS.
 */
export async function probe(page: Page): Promise<'ok' | 'crashed' | 'busy'> {
  let timer: NodeJS.Timeout | undefined;
  const busy = new Promise<'busy'>((resolve) => (timer = setTimeout(() => resolve('busy'), BUSY_LIMIT_MS)));
  try {
    return await Promise.race([page.evaluate('1').then(() => 'ok' as const), busy]);
  } catch (error) {
    return /crash/i.test(error instanceof Error ? error.message : String(error)) ? 'crashed' : 'ok';
  } finally {
    clearTimeout(timer);
  }
}
