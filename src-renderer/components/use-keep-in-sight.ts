// Keeps one element (the open thread's row) in sight in the list that scrolls it: brought into sight when
// it becomes the one, and brought back after the list changed size (the window was made smaller, a panel
// opened) if it was in sight before. A row the person scrolled away from is left where it is.
import { useEffect } from 'react';
import type { RefObject } from 'react';

/** The nearest ancestor that scrolls vertically, or null. */
function scroller(element: HTMLElement): HTMLElement | null {
  for (let at = element.parentElement; at !== null; at = at.parentElement) {
    const overflow = getComputedStyle(at).overflowY;
    if (overflow === 'auto' || overflow === 'scroll') return at;
  }
  return null;
}

/** Whether the whole of `element` is inside `viewport`'s box (a pixel of rounding allowed). */
function inSight(element: HTMLElement, viewport: HTMLElement): boolean {
  const box = element.getBoundingClientRect();
  const view = viewport.getBoundingClientRect();
  return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
}

export function useKeepInSight(ref: RefObject<HTMLElement | null>, keep: boolean): void {
  useEffect(() => {
    const element = ref.current;
    if (!keep || element === null) return undefined;
    element.scrollIntoView({ block: 'nearest' });
    const viewport = scroller(element);
    if (viewport === null || typeof ResizeObserver === 'undefined') return undefined;
    let seen = inSight(element, viewport);
    const look = (): void => {
      seen = inSight(element, viewport);
    };
    const resized = new ResizeObserver(() => {
      if (seen && !inSight(element, viewport)) element.scrollIntoView({ block: 'nearest' });
      look();
    });
    resized.observe(viewport);
    viewport.addEventListener('scroll', look, { passive: true });
    return () => {
      resized.disconnect();
      viewport.removeEventListener('scroll', look);
    };
  }, [ref, keep]);
}
