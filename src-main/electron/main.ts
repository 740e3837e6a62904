// The desktop app's main process: single instance, the app:// renderer, one window per project, the
// IPC transport to the core's dispatcher, menus, dialogs, notifications and the badge. The core itself
// comes from the AppHostFactory that entry.ts passes in.
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { BrowserWindow, Menu, app, dialog, ipcMain, safeStorage, session, shell } from 'electron';
import type { OpenDialogOptions } from 'electron';
import { loadConfig } from '../config';
import { resolveWeftHome } from '../config/home';
import { NOTIFICATION_DEFAULTS, notificationSettings } from '../../src-preload/protocol';
import { registerAppScheme, serveRenderer } from './app-protocol';
import type { AppHost } from '../server/app-host';
import type { AppHostFactory } from './host-types';
import { IpcChannels } from '../../src-preload/bridge';
import { attachIpcTransport, handleTrustedInvoke, sendShellEvent } from './ipc-transport';
import { IpcRouter } from './ipc-router';
import { firstAppArgIndex, forwardedLaunch, parseLaunchArgs, readSecondLaunch } from './launch-args';
import { buildMenuTemplate } from './menu-template';
import { attachAttention } from './notifications';
import { ProjectWindows } from './project-windows';
import { RecentProjects } from './recent-projects';
import { SafeSecretStore } from './secret-store';
import type { SafeStorageLike } from './secret-store';
import { jsonFile } from './state-file';
import { WindowStateStore } from './window-state';
import { guardAllWebContents, hardenSession } from './web-guards';
import { setSpawnHostLauncher } from '../util/spawn-host/connection';
import { utilitySpawnHost } from './spawn-host-launcher';

/** How long quitting waits for the core to stop turns and flush before exiting anyway. */
const SHUTDOWN_GRACE_MS = 5_000;

function log(message: string): void {
  console.warn(`[weft] ${message}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A folder path made absolute and symlink-free, or a sentence saying why it can't be opened. */
async function checkFolder(path: string): Promise<{ ok: true; path: string } | { ok: false; why: string }> {
  try {
    const real = await realpath(path);
    if (!(await stat(real)).isDirectory()) return { ok: false, why: `${path} is a file, not a folder.` };
    return { ok: true, path: real };
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT') return { ok: false, why: `There is no folder ${path}.` };
    if (code === 'EACCES') return { ok: false, why: `Weft may not read ${path} (permission denied).` };
    return { ok: false, why: `${path} can't be opened: ${describe(error)}` };
  }
}

function safeStorageFor(platform: string): SafeStorageLike {
  return {
    isEncryptionAvailable: () => safeStorage.isEncryptionAvailable(),
    encryptString: (text) => safeStorage.encryptString(text),
    decryptString: (data) => safeStorage.decryptString(data),
    getSelectedStorageBackend: platform === 'linux' ? () => safeStorage.getSelectedStorageBackend() : undefined,
  };
}

/**
 * Starts the desktop app. Call once, synchronously at the top of the main module: the scheme
 * registration, the single-instance lock and the sandbox switch must all happen before `ready`.
 */
export function startDesktopApp(factory: AppHostFactory): void {
  app.setName('Weft');
  const argStart = firstAppArgIndex(process.defaultApp === true);
  const launch = parseLaunchArgs(process.argv, argStart, process.cwd());
  if (!app.requestSingleInstanceLock(forwardedLaunch(launch))) {
    // Another Weft is running: it received our folders through `second-instance`.
    app.quit();
    return;
  }
  app.enableSandbox();
  registerAppScheme();
  const devTools = !app.isPackaged;
  guardAllWebContents(app, { devTools, log });

  /** Folders asked for before the app was ready (macOS open-file, second launches). */
  const early: string[] = [...launch.folders];
  let openProject: ((path: string) => Promise<void>) | null = null;
  let focusAny: (() => Promise<void>) | null = null;
  let appHost: AppHost | null = null;
  /** Work that must finish before the process exits (window positions on disk). */
  let beforeExit: () => Promise<void> = () => Promise.resolve();
  const disposers: (() => void)[] = [];
  let quitting = false;

  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (openProject === null) early.push(path);
    else void openProject(path);
  });
  app.on('second-instance', (_event, commandLine, workingDirectory, additionalData) => {
    const request = readSecondLaunch(additionalData, commandLine, workingDirectory, argStart);
    if (openProject === null) early.push(...request.folders);
    else if (request.folders.length === 0) void focusAny?.();
    else for (const folder of request.folders) void openProject(folder);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void focusAny?.();
  });
  app.on('before-quit', (event) => {
    if (quitting || appHost === null) return;
    event.preventDefault();
    quitting = true;
    for (const dispose of disposers.splice(0).reverse()) dispose();
    const host = appHost;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    Promise.race([Promise.all([beforeExit(), host.close()]), grace])
      .catch((error: unknown) => log(`The core did not shut down cleanly: ${describe(error)}`))
      .finally(() => app.quit());
  });

  const run = async (): Promise<void> => {
    // Commands start in a utility process of their own, never by forking this one (util/spawn-host).
    setSpawnHostLauncher(utilitySpawnHost);
    const appPath = app.getAppPath();
    const userData = app.getPath('userData');
    const weftHome = resolveWeftHome(process.env);
    app.setAboutPanelOptions({ applicationName: 'Weft', applicationVersion: app.getVersion() });

    hardenSession(session.defaultSession, { devTools, log });
    serveRenderer(session.defaultSession, join(appPath, 'dist', 'renderer'));

    const states = await WindowStateStore.load(jsonFile(join(userData, 'window-state.json')), { onInvalidFile: log });
    const recent = await RecentProjects.load(jsonFile(join(userData, 'recent-projects.json')), { onInvalidFile: log });
    const secrets = new SafeSecretStore(
      safeStorageFor(process.platform),
      jsonFile(join(weftHome, 'secrets.json'), { mode: 0o600 }),
    );

    try {
      appHost = await factory({ weftHome, secrets });
    } catch (error) {
      dialog.showErrorBox('Weft could not start', `The agent core failed to start: ${describe(error)}`);
      app.exit(1);
      return;
    }

    const router = new IpcRouter(appHost.host);
    let windows: ProjectWindows | null = null;
    /** File → Open Recent / Open Folder (set once the windows exist). */
    let openHere: ((path: string) => Promise<boolean>) | null = null;
    let openFolderHere: (() => Promise<boolean>) | null = null;
    const refreshMenu = (): void => {
      const template = buildMenuTemplate(
        { platform: process.platform, appName: 'Weft', recentProjects: recent.list().map((p) => p.path), devTools },
        {
          openFolder: () => void openFolderHere?.(),
          openRecent: (path) => void openHere?.(path),
          clearRecent: () => {
            app.clearRecentDocuments();
            recent
              .clear()
              .then(refreshMenu, (error: unknown) => log(`Could not clear recent projects: ${describe(error)}`));
          },
          newThread: () => {
            const current = windows?.current();
            if (current !== undefined) sendShellEvent(current.webContents.id, { type: 'newThread' });
          },
          openWeftHome: () => void shell.openPath(weftHome),
        },
      );
      Menu.setApplicationMenu(Menu.buildFromTemplate(template));
    };
    windows = new ProjectWindows({
      policy: { preloadPath: join(appPath, 'dist', 'electron', 'preload.cjs'), devTools },
      states,
      log,
      onChange: refreshMenu,
    });
    const projectWindows = windows;
    beforeExit = () => projectWindows.saveAll();

    disposers.push(attachIpcTransport({ ipcMain, router, windowContentsIds: () => projectWindows.contentsIds(), log }));

    /**
     * Checks a folder asked for by path and runs `show` with it, then puts it in Recent; a folder that
     * cannot be opened is said in a dialog and leaves Recent. False when it could not be opened.
     */
    const withFolder = async (path: string, show: (folder: string) => void): Promise<boolean> => {
      const folder = await checkFolder(path);
      if (!folder.ok) {
        await dialog.showMessageBox({ type: 'error', message: 'Weft can’t open this folder', detail: folder.why });
        await recent.remove(path).catch(() => undefined);
        refreshMenu();
        return false;
      }
      show(folder.path);
      app.addRecentDocument(folder.path);
      await recent
        .add(folder.path)
        .catch((error: unknown) => log(`Could not remember ${folder.path}: ${describe(error)}`));
      refreshMenu();
      return true;
    };
    const open = (path: string, threadId?: string): Promise<boolean> =>
      withFolder(path, (folder) => projectWindows.open(folder, threadId));
    openProject = async (path) => {
      await open(path);
    };

    /** The folder dialog's answer; null when cancelled. */
    const askFolder = async (): Promise<string | null> => {
      const parent = projectWindows.current();
      const options: OpenDialogOptions = { title: 'Open Folder', properties: ['openDirectory', 'createDirectory'] };
      const result =
        parent === undefined ? await dialog.showOpenDialog(options) : await dialog.showOpenDialog(parent, options);
      const chosen = result.filePaths[0];
      return result.canceled || chosen === undefined ? null : chosen;
    };

    const chooseFolder = async (): Promise<boolean> => {
      const chosen = await askFolder();
      return chosen === null ? false : open(chosen);
    };

    // File → Open Folder / Open Recent: the folder joins the window in front, among its projects (one
    // window holds several); a folder a window already has as its own is shown there; with no window, it
    // opens one.
    openHere = async (path) => {
      const current = projectWindows.current();
      if (current === undefined || projectWindows.get(path) !== undefined) return open(path);
      return withFolder(path, (folder) => {
        sendShellEvent(current.webContents.id, { type: 'openProject', path: folder });
        current.show();
        current.focus();
      });
    };
    const openInFront = openHere;
    openFolderHere = async () => {
      const chosen = await askFolder();
      return chosen === null ? false : openInFront(chosen);
    };

    disposers.push(
      handleTrustedInvoke(
        { ipcMain, windowContentsIds: () => projectWindows.contentsIds(), log },
        IpcChannels.openProject,
        async (argument) => {
          if (argument === null) return chooseFolder();
          if (typeof argument !== 'string' || !isAbsolute(argument))
            throw new Error('openProject takes an absolute folder path, or null.');
          return open(argument);
        },
      ),
    );

    // A window's sidebar adds the folder among its own projects (one window holds several).
    disposers.push(
      handleTrustedInvoke(
        { ipcMain, windowContentsIds: () => projectWindows.contentsIds(), log },
        IpcChannels.chooseFolder,
        async () => {
          const chosen = await askFolder();
          if (chosen === null) return null;
          // The window shows the folder itself: here it is only checked and remembered.
          let checked = null as string | null;
          await withFolder(chosen, (folder) => (checked = folder));
          return checked;
        },
      ),
    );

    /** With no window open: the most recent project that still exists, else the folder dialog. */
    focusAny = async () => {
      const current = projectWindows.current();
      if (current !== undefined) {
        current.show();
        current.focus();
        return;
      }
      for (const project of recent.list()) {
        if ((await checkFolder(project.path)).ok) {
          await open(project.path);
          return;
        }
      }
      if (!(await chooseFolder()) && projectWindows.size === 0 && process.platform !== 'darwin') app.quit();
    };

    disposers.push(
      attachAttention({
        app,
        appHost,
        windows: projectWindows,
        log,
        settings: () =>
          // The user's own table: read from WEFT_HOME, where no project's `.weft/config.toml` applies.
          loadConfig({ weftHome, cwd: weftHome, env: process.env }).then(
            (loaded) => notificationSettings(loaded.config.notifications),
            () => NOTIFICATION_DEFAULTS,
          ),
        focusThread: (plan, cwd) => {
          const window = plan.project === null ? undefined : projectWindows.get(plan.project);
          if (plan.project === null || window === undefined || window.isDestroyed()) {
            // The project's window was closed: reopen it on the thread's folder, showing the thread.
            void open(plan.project ?? cwd, plan.threadId);
            return;
          }
          projectWindows.open(plan.project);
          sendShellEvent(window.webContents.id, { type: 'focusThread', threadId: plan.threadId });
        },
        openInboxRun: (click) => {
          void (async () => {
            let window = click.window === 'project' ? projectWindows.get(click.project) : undefined;
            if (click.window === 'project' && window !== undefined && !window.isDestroyed())
              projectWindows.open(click.project);
            else {
              await focusAny?.();
              window = projectWindows.current();
            }
            if (window === undefined || window.isDestroyed()) return;
            const event = { type: 'openInboxRun', automationId: click.automationId, runId: click.runId } as const;
            // A window just opened hears shell events once its page has loaded.
            if (window.webContents.isLoading())
              window.webContents.once('did-finish-load', () => sendShellEvent(window.webContents.id, event));
            else sendShellEvent(window.webContents.id, event);
          })();
        },
      }),
    );

    refreshMenu();
    for (const folder of early.splice(0)) await open(folder);
    // Nothing asked for, or nothing that could be opened: the most recent project, else the dialog.
    if (projectWindows.size === 0) await focusAny();
  };

  app
    .whenReady()
    .then(run)
    .catch((error: unknown) => {
      dialog.showErrorBox('Weft could not start', describe(error));
      app.exit(1);
    });
}
