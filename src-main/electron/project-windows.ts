// One window per open project folder. Opening a project that already has a window focuses it; each
// window's size and position are saved per project when it closes and restored on the next open.
import { basename } from 'node:path';
import { BrowserWindow, screen } from 'electron';
import { appPageUrl } from './app-origin';
import { projectWindowOptions } from './security-policy';
import type { WindowPolicyOptions } from './security-policy';
import { placeWindow } from './window-state';
import type { Rect, WindowStateStore } from './window-state';

export const DEFAULT_WINDOW_SIZE = { width: 1280, height: 860 };

export interface ProjectWindowsOptions {
  policy: WindowPolicyOptions;
  states: WindowStateStore;
  log: (message: string) => void;
  /** Called after a window opened or closed (menus, dock). */
  onChange: () => void;
}

export class ProjectWindows {
  readonly #options: ProjectWindowsOptions;
  readonly #windows = new Map<string, BrowserWindow>();

  constructor(options: ProjectWindowsOptions) {
    this.#options = options;
  }

  /**
   * Focuses the project's window, creating it if needed. `projectPath` must be absolute and real.
   * `threadId` is shown first when the window is created (an existing window is told via a ShellEvent).
   */
  open(projectPath: string, threadId?: string): BrowserWindow {
    const existing = this.#windows.get(projectPath);
    if (existing !== undefined && !existing.isDestroyed()) {
      if (existing.isMinimized()) existing.restore();
      existing.show();
      existing.focus();
      return existing;
    }
    return this.#create(projectPath, threadId);
  }

  /** The windows' webContents ids: the only senders the IPC transport accepts. */
  contentsIds(): ReadonlySet<number> {
    const ids = new Set<number>();
    for (const window of this.#windows.values()) if (!window.isDestroyed()) ids.add(window.webContents.id);
    return ids;
  }

  projects(): string[] {
    return [...this.#windows.keys()];
  }

  get(projectPath: string): BrowserWindow | undefined {
    return this.#windows.get(projectPath);
  }

  /** The folder of the focused Weft window, or null when none has focus. */
  focusedProject(): string | null {
    const focused = BrowserWindow.getFocusedWindow();
    if (focused === null) return null;
    for (const [project, window] of this.#windows) if (window === focused) return project;
    return null;
  }

  /** The focused project window, else the most recently opened one. */
  current(): BrowserWindow | undefined {
    const focused = this.focusedProject();
    if (focused !== null) return this.#windows.get(focused);
    return [...this.#windows.values()].at(-1);
  }

  get size(): number {
    return this.#windows.size;
  }

  /** Saves every open window's state and waits until it is on disk (before quitting). */
  async saveAll(): Promise<void> {
    await Promise.all([...this.#windows].map(([project, window]) => this.#saveState(project, window)));
    await this.#options.states.flush();
  }

  async #saveState(projectPath: string, window: BrowserWindow): Promise<void> {
    if (window.isDestroyed()) return;
    const bounds = window.getNormalBounds();
    try {
      await this.#options.states.save(projectPath, {
        ...bounds,
        maximized: window.isMaximized(),
        fullScreen: window.isFullScreen(),
      });
    } catch (error) {
      this.#options.log(
        `Could not save the window position of ${projectPath}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  #create(projectPath: string, threadId: string | undefined): BrowserWindow {
    const primary = screen.getPrimaryDisplay();
    const workAreas: Rect[] = [
      primary.workArea,
      ...screen
        .getAllDisplays()
        .filter((d) => d.id !== primary.id)
        .map((d) => d.workArea),
    ];
    const placement = placeWindow(this.#options.states.get(projectPath), workAreas, DEFAULT_WINDOW_SIZE);
    const title = `${basename(projectPath) || projectPath} — Weft`;
    const window = new BrowserWindow(
      projectWindowOptions(
        this.#options.policy,
        { x: placement.x, y: placement.y, width: placement.width, height: placement.height },
        title,
      ),
    );
    this.#windows.set(projectPath, window);
    if (process.platform === 'darwin') window.setRepresentedFilename(projectPath);
    if (placement.maximized) window.maximize();
    if (placement.fullScreen) window.setFullScreen(true);

    window.on('page-title-updated', (event) => event.preventDefault());
    window.once('ready-to-show', () => window.show());
    window.on('close', () => {
      void this.#saveState(projectPath, window);
    });
    window.on('closed', () => {
      if (this.#windows.get(projectPath) === window) this.#windows.delete(projectPath);
      this.#options.onChange();
    });
    window.webContents.on('did-fail-load', (_event, code, description, url) => {
      this.#options.log(`The window of ${projectPath} failed to load ${url}: ${description} (${code}).`);
    });

    window.loadURL(appPageUrl(projectPath, threadId)).catch((error: unknown) => {
      this.#options.log(`The window of ${projectPath} could not load the app: ${String(error)}`);
    });
    this.#options.onChange();
    return window;
  }
}
