// Costly widgets (a Monaco diff: two editors, their views and a diff) are made once their place comes
// within a screenful of what the person sees, not all at once: a restore preview or a review of 80 files
// would otherwise make 80 editors, one per frame for seconds, most of them never looked at.

/** The nearest ancestor of `element` that scrolls vertically; null for the page itself. */
function scrollerOf(element: HTMLElement): HTMLElement | null {
  for (let node = element.parentElement; node !== null; node = node.parentElement) {
    const overflow = getComputedStyle(node).overflowY;
    if (overflow === 'auto' || overflow === 'scroll' || overflow === 'overlay') return node;
  }
  return null;
}

/**
 * Calls `near` once, when `element` comes within a screenful (of its scroller, or of the page) of the view;
 * at once where the page cannot tell (no IntersectionObserver). The returned function stops waiting.
 */
export function whenNear(element: HTMLElement, near: () => void): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    near();
    return () => undefined;
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      near();
    },
    { root: scrollerOf(element), rootMargin: '100% 0px 100% 0px' },
  );
  observer.observe(element);
  return () => observer.disconnect();
}
