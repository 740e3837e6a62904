// Mouse-only helpers for e2e tests: reach things the way a person does. `wheelIntoView` scrolls with the
// mouse wheel (never `scrollIntoView`), `clickCentre` clicks at the element's centre after checking that
// the element itself is what the pointer would hit there. Both fail with a message naming what stood in
// the way, so "unreachable by mouse" is a test failure, not something Playwright quietly works around.
import type { JSHandle, Locator, Page } from 'playwright-core';

interface Hit {
  /** The element's centre, in viewport pixels. */
  x: number;
  y: number;
  /** The element at the centre is the target or inside it. */
  hit: boolean;
  /** What is at the centre instead, for messages. */
  blocker: string;
  /** Target above (-1), below (1) or within (0) what can be seen. */
  direction: -1 | 0 | 1;
}

async function probe(target: Locator): Promise<Hit> {
  return target.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    const describe = (node: Element | null): string =>
      node === null
        ? 'nothing (outside the window)'
        : `<${node.tagName.toLowerCase()} class="${node.getAttribute('class') ?? ''}">`;
    const at =
      y >= 0 && y < window.innerHeight && x >= 0 && x < window.innerWidth ? document.elementFromPoint(x, y) : null;
    const hit = at !== null && (at === element || element.contains(at));
    // Which way to scroll: compare with the nearest clipping ancestor's visible box.
    let top = 0;
    let bottom = window.innerHeight;
    for (let node = element.parentElement; node !== null; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(auto|scroll|hidden|clip)/.test(style.overflowY)) {
        const clip = node.getBoundingClientRect();
        top = Math.max(top, clip.top);
        bottom = Math.min(bottom, clip.bottom);
      }
    }
    const direction = box.bottom > bottom ? 1 : box.top < top ? -1 : 0;
    return { x, y, hit, blocker: describe(at), direction };
  });
}

/** Resolves once the element's box has stayed put for two animation frames (layout has settled). */
async function settled(target: Locator): Promise<void> {
  await target.evaluate(
    (element) =>
      new Promise<void>((resolve) => {
        let last = '';
        let same = 0;
        const check = (): void => {
          const box = element.getBoundingClientRect();
          const now = `${box.left},${box.top},${box.width},${box.height}`;
          same = now === last ? same + 1 : 0;
          last = now;
          if (same >= 2) resolve();
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
  );
}

/**
 * Arms a watch for the next `scroll` event anywhere in the page, to be armed before the wheel turns: a watch
 * set up beside the wheel may start listening only after the scroll it was to see. The function it returns
 * says whether a scroll came within `deadlineMs` of arming (false when the page went away).
 */
async function watchScroll(page: Page, deadlineMs: number): Promise<() => Promise<boolean>> {
  const watch = await page.evaluateHandle(
    (ms) => ({
      seen: new Promise<boolean>((resolve) => {
        const done = (value: boolean): void => {
          document.removeEventListener('scroll', onScroll, true);
          window.clearTimeout(timer);
          resolve(value);
        };
        const onScroll = (): void => done(true);
        document.addEventListener('scroll', onScroll, true);
        const timer = window.setTimeout(() => done(false), ms);
      }),
    }),
    deadlineMs,
  );
  return settle(watch);
}

/** `watchScroll` for a change to the rows of `list` (a node added or removed anywhere inside it). */
async function watchRows(list: Locator, deadlineMs: number): Promise<() => Promise<boolean>> {
  const watch = await list.evaluateHandle(
    (element, ms) => ({
      seen: new Promise<boolean>((resolve) => {
        const observer = new MutationObserver(() => done(true));
        const done = (value: boolean): void => {
          observer.disconnect();
          window.clearTimeout(timer);
          resolve(value);
        };
        observer.observe(element, { childList: true, subtree: true });
        const timer = window.setTimeout(() => done(false), ms);
      }),
    }),
    deadlineMs,
  );
  return settle(watch);
}

function settle(watch: JSHandle<{ seen: Promise<boolean> }>): () => Promise<boolean> {
  return async () => {
    const seen = await watch.evaluate((armed) => armed.seen).catch(() => false);
    await watch.dispose().catch(() => undefined);
    return seen;
  };
}

/** Where to put the pointer for the wheel: a point (viewport pixels) or the left padding of an element. */
export type WheelSpot = { x: number; y: number } | Locator;

async function spotOf(spot: WheelSpot): Promise<{ x: number; y: number }> {
  if ('x' in spot) return spot;
  const box = await spot.boundingBox();
  if (box === null) throw new Error('wheelIntoView: the element to wheel over is not visible');
  return { x: box.x + 4, y: box.y + box.height / 2 };
}

/**
 * Turns the mouse wheel with the pointer over `over` until `target`'s centre can be hit. Throws when the
 * wheel stops scrolling before that (the target cannot be reached with the mouse).
 */
export async function wheelIntoView(page: Page, target: Locator, over: WheelSpot, step = 240): Promise<void> {
  await target.waitFor({ state: 'attached' });
  let stuck = 0;
  for (let turn = 0; turn < 60; turn++) {
    await settled(target);
    const state = await probe(target);
    if (state.hit) return;
    if (state.direction === 0) throw new Error(`wheelIntoView: the target is in view but covered by ${state.blocker}`);
    const spot = await spotOf(over);
    await page.mouse.move(spot.x, spot.y);
    // A loaded machine may take a while to start scrolling: only two turns in a row without any
    // scrolling mean the wheel has reached the end.
    const scrolled = await watchScroll(page, 4000);
    await page.mouse.wheel(0, state.direction * step);
    stuck = (await scrolled()) ? 0 : stuck + 1;
    if (stuck >= 2 && !(await probe(target)).hit) {
      throw new Error(
        `wheelIntoView(${String(target)}): the wheel at (${Math.round(spot.x)}, ${Math.round(spot.y)}) no longer scrolls, and the target is still out of reach (at its centre: ${state.blocker})`,
      );
    }
  }
  throw new Error('wheelIntoView: gave up after 60 turns of the wheel');
}

/**
 * Turns the mouse wheel (`direction`: -1 up, 1 down) with the pointer over `over` until `target` is in the
 * page at all: a virtualized list mounts rows, and a diff is made, only as they come near the view. Throws
 * when the wheel stops scrolling first.
 */
export async function wheelUntilAttached(
  page: Page,
  target: Locator,
  over: WheelSpot,
  direction: 1 | -1,
  step = 2400,
): Promise<void> {
  const name = direction < 0 ? 'wheelUpUntilAttached' : 'wheelDownUntilAttached';
  for (let turn = 0; turn < 200; turn++) {
    if ((await target.count()) > 0) return;
    const spot = await spotOf(over);
    await page.mouse.move(spot.x, spot.y);
    const scrolled = await watchScroll(page, 4000);
    await page.mouse.wheel(0, direction * step);
    if (!(await scrolled()) && (await target.count()) === 0)
      throw new Error(`${name}(${String(target)}): the wheel no longer scrolls and the target never came`);
  }
  throw new Error(`${name}: gave up after 200 turns of the wheel`);
}

/** `wheelUntilAttached` upwards (older rows of a long thread). */
export function wheelUpUntilAttached(page: Page, target: Locator, over: WheelSpot, step = 2400): Promise<void> {
  return wheelUntilAttached(page, target, over, -1, step);
}

/**
 * Arms a one-shot watch on `target`: the function it returns says whether the next press of the button
 * (the mousedown, which is where menus act and what a shifted layout makes miss) landed on it.
 */
async function watchClick(target: Locator): Promise<() => Promise<string | null>> {
  const handle = await target.elementHandle();
  if (handle === null) throw new Error('clickCentre: the target went away');
  await handle.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const record = { reached: false, elsewhere: '', from: `${Math.round(box.left)},${Math.round(box.top)}` };
    (element as unknown as { weftClick?: typeof record }).weftClick = record;
    const onPress = (event: Event): void => {
      document.removeEventListener('mousedown', onPress, true);
      const hit = event.target instanceof Element ? event.target : null;
      if (hit !== null && (hit === element || element.contains(hit))) record.reached = true;
      else
        record.elsewhere =
          hit === null ? 'nothing' : `<${hit.tagName.toLowerCase()} class="${hit.getAttribute('class') ?? ''}">`;
    };
    document.addEventListener('mousedown', onPress, true);
  });
  return async () => {
    const verdict = await handle
      .evaluate((element) => {
        const record = (element as unknown as { weftClick?: { reached: boolean; elsewhere: string; from: string } })
          .weftClick;
        if (record === undefined || record.reached) return null;
        const box = element.getBoundingClientRect();
        const now = `${Math.round(box.left)},${Math.round(box.top)}`;
        const where = element.isConnected ? `it moved from ${record.from} to ${now}` : 'it was replaced in the page';
        return `the press landed on ${record.elsewhere === '' ? 'no element' : record.elsewhere}: ${where}`;
      })
      // The click took the page away (a reload, a navigation): it was received.
      .catch(() => null);
    await handle.dispose();
    return verdict;
  };
}

/**
 * Resolves once `target` is not disabled (a person waits for a greyed-out button to come back), from the
 * change of its `disabled` attribute; throws when it stays disabled `timeoutMs`. Chromium sends no mouse
 * event at all to a disabled control: a press on one would otherwise read as landing on no element.
 */
async function enabled(target: Locator, timeoutMs = 20_000): Promise<void> {
  const came = await target.evaluate(
    (element, ms) =>
      new Promise<boolean>((resolve) => {
        const disabled = (): boolean => element.matches(':disabled');
        if (!disabled()) return resolve(true);
        const timer = setTimeout(() => {
          observer.disconnect();
          resolve(false);
        }, ms);
        const observer = new MutationObserver(() => {
          if (disabled()) return;
          clearTimeout(timer);
          observer.disconnect();
          resolve(true);
        });
        // A control is disabled by its own attribute or by a disabled fieldset around it.
        observer.observe(document.body, { attributes: true, attributeFilter: ['disabled'], subtree: true });
      }),
    timeoutMs,
  );
  if (!came) throw new Error(`clickCentre(${String(target)}): the target stayed disabled for ${timeoutMs} ms`);
}

/**
 * Clicks at the centre of `target`, once it is enabled, after checking that the pointer would hit the target there, and
 * checks that the click reached it. When the page moved the target between the look and the click (a late
 * layout change), the click is made once more where the target now is, as a person would; a second miss
 * fails with what the click reached instead.
 */
export async function clickCentre(page: Page, target: Locator): Promise<void> {
  let missed = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    await target.waitFor({ state: 'visible' });
    await enabled(target);
    await settled(target);
    const state = await probe(target);
    if (!state.hit) throw new Error(`clickCentre: at the centre of the target the pointer would hit ${state.blocker}`);
    const reached = await watchClick(target);
    await page.mouse.click(state.x, state.y);
    const miss = await reached();
    if (miss === null) return;
    console.warn(`clickCentre(${String(target)}): ${miss}; clicking again`);
    missed = miss;
  }
  throw new Error(`clickCentre(${String(target)}): twice the click missed the target; last time ${missed}`);
}

/**
 * Turns the mouse wheel down with the pointer over the scrolling `list` until `target` is in the page at
 * all (a list that loads its next page as its end comes near the view). At the end of what is loaded it
 * waits for the list to change (the next page); throws when neither the wheel nor the list moves.
 */
export async function wheelDownUntilAttached(page: Page, target: Locator, list: Locator, step = 2400): Promise<void> {
  for (let turn = 0; turn < 200; turn++) {
    if ((await target.count()) > 0) return;
    const spot = await spotOf(list);
    await page.mouse.move(spot.x, spot.y);
    // Both watches are armed before the wheel turns: the next page may come (or the list scroll) at once.
    const changed = await watchRows(list, 4000);
    const scrolled = await watchScroll(page, 4000);
    await page.mouse.wheel(0, step);
    if (!(await scrolled()) && !(await changed()) && (await target.count()) === 0)
      throw new Error(
        `wheelDownUntilAttached(${String(target)}): the wheel no longer scrolls, no more rows came, and the target is not there`,
      );
  }
  throw new Error('wheelDownUntilAttached: gave up after 200 turns of the wheel');
}
