// How the thread's Chromium is started (session.ts): its flags, window size, and the script that caps the
// popups a page may open.

/** Flags that keep a headless Chromium quiet and self-contained (no sync, updates or background traffic). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
];

export const VIEWPORT = { width: 1280, height: 800 };
/** Pages open at once (a page opening popups in a loop gets the rest closed at once). */
export const MAX_PAGES = 5;
export const POPUP_CAP_SCRIPT = `(() => {
  const open = window.open.bind(window);
  let opened = 0;
  window.open = (...args) => {
    if (++opened <= ${MAX_PAGES}) return open(...args);
    if (opened === ${MAX_PAGES} + 1) console.warn('window.open was refused: a page may open at most ${MAX_PAGES} popups');
    return null;
  };
})();`;
