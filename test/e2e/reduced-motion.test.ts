// A person who asks for less motion (the system's "reduce motion", `prefers-reduced-motion: reduce`) sees
// nothing move on its own: the spinner stands still, the streaming caret does not blink; the words beside
// them say what runs. The e2e harness asks for it too, so Chromium draws no frame for a spinner.
import { afterEach, describe, expect, it } from 'vitest';
import { startE2e, type E2e } from '../support/weft-serve';

let e2e: E2e | undefined;
afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

/** The animation the app's styles give a spinner and the streaming caret, in this page. */
async function animations(page: E2e['page']): Promise<{ spinner: string; caret: string; reduced: boolean }> {
  return page.evaluate(() => {
    const probe = (html: string): string => {
      const holder = document.createElement('div');
      holder.innerHTML = html;
      document.body.append(holder);
      const element = holder.firstElementChild;
      const name = element === null ? 'missing' : getComputedStyle(element).animationName;
      holder.remove();
      return name;
    };
    return {
      spinner: probe('<svg class="spinner" width="12" height="12"></svg>'),
      caret: probe('<span class="stream-caret"></span>'),
      reduced: matchMedia('(prefers-reduced-motion: reduce)').matches,
    };
  });
}

describe('less motion', () => {
  it('stops the spinner and the caret when the person asks for less motion', async () => {
    e2e = await startE2e({ reducedMotion: 'reduce' });
    expect(await animations(e2e.page)).toEqual({ spinner: 'none', caret: 'none', reduced: true });
  });

  it('spins and blinks otherwise', async () => {
    e2e = await startE2e({ reducedMotion: 'no-preference' });
    expect(await animations(e2e.page)).toEqual({ spinner: 'spin', caret: 'blink', reduced: false });
  });
});
