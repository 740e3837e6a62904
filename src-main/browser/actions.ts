// What each `browser` tool does to the thread's page, as text for the model (and a screenshot when taken).
// Elements are addressed by their accessible role and name first (what `read` shows), then by CSS
// selector or visible text.
import type { Locator, Page } from 'playwright-core';
import { truncateMiddle } from '../tools/exec';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../tools/exec/constants';
import { capture, type Capture } from './capture';
import type { BrowserTimeouts } from './launch-settings';
import type { BrowserSession } from './session';

export interface Target {
  role?: string | undefined;
  name?: string | undefined;
  selector?: string | undefined;
  text?: string | undefined;
}

/** The target in words, for the item and for errors. */
export function describeTarget(t: Target): string {
  if (t.role !== undefined) return t.name === undefined ? `${t.role}` : `${t.role} "${t.name}"`;
  if (t.selector !== undefined) return t.selector;
  if (t.text !== undefined) return `text "${t.text}"`;
  return '';
}

/** The one element `t` addresses; an error the model can act on when none or several match. */
export async function locate(page: Page, t: Target): Promise<Locator> {
  let locator: Locator;
  if (t.role !== undefined)
    locator = page.locator(`role=${t.role}${t.name === undefined ? '' : `[name=${JSON.stringify(t.name)}]`}`);
  else if (t.selector !== undefined) locator = page.locator(t.selector);
  else if (t.text !== undefined) locator = page.getByText(t.text);
  else throw new Error('say which element: give `role` (and `name`), `selector` or `text`');
  const what = describeTarget(t);
  let count: number;
  try {
    count = await locator.count();
  } catch (error) {
    throw new Error(`${what} is not a valid way to find an element: ${firstLine(error)}`, { cause: error });
  }
  if (count === 0) throw new Error(`no element on the page matches ${what}; \`read\` shows the page's roles and names`);
  if (count > 1) {
    // An exact name match among several partial ones (role selectors match names as substrings).
    if (t.role !== undefined && t.name !== undefined) {
      const exact = page.locator(`role=${t.role}[name=${JSON.stringify(t.name)}s]`);
      if ((await exact.count()) === 1) return exact;
    }
    throw new Error(`${count} elements match ${what}; give a more precise name or a selector`);
  }
  return locator;
}

/** Text cut as command output is (the middle goes, with a marker). */
export function cut(text: string): string {
  return truncateMiddle(text, DEFAULT_MAX_OUTPUT_TOKENS).text;
}

export async function pageSummary(page: Page, timeouts: BrowserTimeouts): Promise<string> {
  // A page busy in a script never answers: its title is left out rather than waited for.
  let timer: NodeJS.Timeout | undefined;
  const busy = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(''), timeouts.busyMs)));
  const title = await Promise.race([page.title().catch(() => ''), busy]).finally(() => clearTimeout(timer));
  return `${page.url()}${title === '' ? '' : ` — "${title}"`}`;
}

export async function readPage(page: Page, selector: string | undefined, timeouts: BrowserTimeouts): Promise<string> {
  if (selector !== undefined) {
    const locator = await locate(page, { selector });
    const text = await locator.innerText();
    return cut(`Visible text of ${selector} on ${await pageSummary(page, timeouts)}:\n${text}`);
  }
  const snapshot = await page.locator('body').ariaSnapshot({ timeout: timeouts.actionMs });
  return cut(`Accessibility snapshot of ${await pageSummary(page, timeouts)}:\n${snapshot}`);
}

export async function screenshot(
  session: BrowserSession,
  page: Page,
  options: { fullPage: boolean; selector: string | undefined },
): Promise<Capture> {
  const element = options.selector === undefined ? null : await locate(page, { selector: options.selector });
  return capture(await session.cdpOf(page), { fullPage: options.fullPage, element });
}

/** Runs `expression` in the page; a script that never returns is cut off, and its page closed. */
export async function evaluate(page: Page, expression: string, timeouts: BrowserTimeouts): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`the expression did not finish within ${timeouts.actionMs / 1000} s; the page was closed`)),
      timeouts.actionMs,
    );
  });
  try {
    const value: unknown = await Promise.race([page.evaluate(expression), timeout]);
    const json = JSON.stringify(value) as string | undefined;
    return cut(json === undefined ? 'undefined' : json);
  } catch (error) {
    if (error instanceof Error && error.message.includes('did not finish within')) {
      await page.close({ runBeforeUnload: false }).catch(() => undefined);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
