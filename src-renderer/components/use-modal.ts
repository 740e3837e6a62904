// What every modal dialog does with the keyboard: focus moves into it when it opens (to the element marked
// `data-autofocus`, else the first control; to the dialog itself while the marked one is disabled, and to
// it once enabled), Tab and Shift+Tab stay inside it, Esc closes it, and focus
// returns to where it was when it closes. `useModalOpen` tells what must stay out of a dialog's way (the
// toasts go behind the backdrop) that one is open.
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { RefObject } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Open modals, innermost last: only the innermost one answers Esc and Tab. */
const openModals: object[] = [];
const modalListeners = new Set<() => void>();

function modalsChanged(): void {
  for (const listener of modalListeners) listener();
}

function subscribeModals(listener: () => void): () => void {
  modalListeners.add(listener);
  return () => modalListeners.delete(listener);
}

/** Whether a modal dialog is open now. */
export function useModalOpen(): boolean {
  return useSyncExternalStore(subscribeModals, () => openModals.length > 0);
}

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.closest('[hidden], [inert]') && el.getClientRects().length > 0,
  );
}

/** Wires `ref` (the dialog element) as a modal; `onClose` runs on Esc. */
export function useModal(ref: RefObject<HTMLElement | null>, onClose: () => void): void {
  const close = useRef(onClose);
  useLayoutEffect(() => {
    close.current = onClose;
  });
  // Read while rendering the first time: effects of the dialog's children (an autofocused field) run
  // before this hook's effect and would already have moved focus.
  const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  useEffect(() => {
    const root = ref.current;
    if (root === null) return;
    // The element marked `data-autofocus` may be disabled until the dialog has loaded (a Restore button
    // waiting for its preview): the dialog holds the focus meanwhile, and it moves there once enabled.
    const marked = root.querySelector<HTMLElement>('[data-autofocus]');
    const usable = (el: HTMLElement | null): el is HTMLElement => el !== null && !el.matches(':disabled');
    const first = (): HTMLElement => (usable(marked) ? marked : (focusables(root)[0] ?? root));
    if (!root.contains(document.activeElement)) (usable(marked) || marked === null ? first() : root).focus();
    const enabled = new MutationObserver(() => {
      if (!usable(marked)) return;
      enabled.disconnect();
      if (document.activeElement === root || !root.contains(document.activeElement)) marked.focus();
    });
    if (marked !== null && !usable(marked))
      enabled.observe(marked, { attributes: true, attributeFilter: ['disabled'] });
    const token = {};
    openModals.push(token);
    modalsChanged();
    const onKey = (event: KeyboardEvent): void => {
      if (openModals[openModals.length - 1] !== token) return;
      if (event.key === 'Escape') {
        // An inner control (a menu, a text field clearing itself) may use Esc first.
        if (event.defaultPrevented) return;
        event.preventDefault();
        event.stopPropagation();
        close.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const list = focusables(root);
      const head = list[0];
      const tail = list[list.length - 1];
      if (head === undefined || tail === undefined) {
        event.preventDefault();
        return;
      }
      const active = document.activeElement;
      if (event.shiftKey && (active === head || !root.contains(active))) {
        event.preventDefault();
        tail.focus();
      } else if (!event.shiftKey && (active === tail || !root.contains(active))) {
        event.preventDefault();
        head.focus();
      }
    };
    // On the document, not the dialog: focus may have fallen to <body> (a focused button was disabled or
    // removed), and Esc and Tab must still work.
    document.addEventListener('keydown', onKey);
    // Focus that lands outside (a click on the backdrop, a script) is brought back in.
    const onFocusIn = (event: FocusEvent): void => {
      if (openModals[openModals.length - 1] !== token) return;
      if (event.target instanceof Node && !root.contains(event.target)) first().focus();
    };
    document.addEventListener('focusin', onFocusIn);
    return () => {
      enabled.disconnect();
      document.removeEventListener('keydown', onKey);
      openModals.splice(openModals.indexOf(token), 1);
      modalsChanged();
      document.removeEventListener('focusin', onFocusIn);
      if (opener !== null && opener.isConnected) opener.focus();
    };
  }, [ref, opener]);
}
