// What the desktop shell needs from the core: one ConnectionHost (the JSON-RPC dispatcher the app server
// uses), attention events for notifications and the badge, and a way to shut down. The factory lives in
// the server layer; entry.ts passes it to startDesktopApp, so this folder never imports the core.
import type { ConnectionHost } from '../server/transport';

/** Something a person should come back for. */
export interface AttentionEvent {
  /** `approval`: a command, patch or question waits on the user. `turnFinished`: a turn ended. */
  kind: 'approval' | 'turnFinished';
  threadId: string;
  /** The thread's working directory: picks the project window a click on the notification focuses. */
  cwd: string;
  /** The thread's name, else its preview; shown as the notification's title. */
  title: string;
  /** One line on what is waiting or how the turn ended; empty = a generic line is shown. */
  detail: string;
  /** For `turnFinished`: how long the turn ran. Omitted = unknown (treated as short). */
  durationMs?: number;
}

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

export interface AppHost {
  readonly host: ConnectionHost;
  /** Subscribes to attention events; returns the unsubscribe. */
  onAttention(listener: (event: AttentionEvent) => void): () => void;
  /** Threads waiting on the user across the app (approvals, questions), on every change. */
  onWaitingCountChanged(listener: (count: number) => void): () => void;
  /** Stops running turns and flushes stores. Called once, before the app quits. */
  close(): Promise<void>;
}

export interface AppHostOptions {
  /** WEFT_HOME, resolved. */
  weftHome: string;
  secrets: SecretStore;
}

export type AppHostFactory = (options: AppHostOptions) => Promise<AppHost>;
