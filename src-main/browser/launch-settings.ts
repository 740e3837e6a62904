// How the thread's Chromium is started (session.ts): its flags, window size, the script that caps the
// popups a page may open, and how long the session waits before it gives up.
import { BROWSER_TIMEOUT_DEFAULTS, type WeftConfig } from '../config/schema';

/**
 * The features playwright-core (1.65) turns off with its own `--disable-features`. Chromium keeps only the
 * last `--disable-features` it is given, so the one in CHROMIUM_FLAGS repeats them;
 * test/e2e/harness-browser.test.ts fails when playwright-core turns off one this list lacks.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Flags that keep a headless Chromium quiet and self-contained (no sync, updates or background traffic).
 * The omnibox popup's WebUI is off: Chromium opens it (chrome://omnibox-popup.top-chrome/ and its AI-mode
 * page) for every new window in a renderer process of its own, about 0.6 s of CPU and a process for a popup
 * no one opens here (the pages are driven, never typed into an address bar).
 */
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
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'].join(',')}`,
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

/** How long the session waits, in milliseconds (config.toml's `[browser]` keys are in seconds). */
export interface BrowserTimeouts {
  /** A page's load must end within this; the model is told it did not and may look at what is there. */
  loadMs: number;
  /** Clicks, typing, `evaluate` and waits for an element end within this. */
  actionMs: number;
  /** A page that does not answer a trivial script for this long is taken as hung in a script, and closed. */
  busyMs: number;
}

/** The waits `[browser]` sets, the defaults for the keys it leaves out. */
export function browserTimeouts(table: WeftConfig['browser']): BrowserTimeouts {
  const seconds = { ...BROWSER_TIMEOUT_DEFAULTS, ...table };
  return {
    loadMs: seconds.load_timeout_sec * 1000,
    actionMs: seconds.action_timeout_sec * 1000,
    busyMs: seconds.busy_timeout_sec * 1000,
  };
}
