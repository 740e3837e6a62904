// What the desktop shell needs from the core: one ConnectionHost (the JSON-RPC dispatcher the app server
// uses), attention events for notifications and the badge, and a way to shut down. The factory lives in
// the server layer; entry.ts passes it to startDesktopApp, so this folder never imports the core (the
// AppHost and AttentionEvent shapes are the server's, imported as types only).
import type { AppHost } from '../server/app-host';

/**
 * API keys and other secrets the person types into the UI. The desktop implementation encrypts them with
 * the OS keychain (safeStorage); values never land in config.toml.
 */
export interface SecretStore {
  /** Whether values can be stored encrypted; `set` throws when false. */
  isAvailable(): boolean;
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** Resolves false when there was nothing to delete. */
  delete(name: string): Promise<boolean>;
  /** Names only, sorted. */
  list(): Promise<string[]>;
}

/** What the desktop shell hands the factory (the server's own `AppHostOptions` are wider). */
export interface DesktopHostOptions {
  /** WEFT_HOME, resolved. */
  weftHome: string;
  secrets: SecretStore;
}

export type AppHostFactory = (options: DesktopHostOptions) => Promise<AppHost>;
