// The application menu as data: File (Open Folder…, Open Recent, New Thread), Edit, View, Window, Help.
// Imports Electron's types only; menu.ts turns the template into a Menu.
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  openFolder(): void;
  openRecent(path: string): void;
  clearRecent(): void;
  newThread(): void;
  /** Reveals WEFT_HOME (config.toml, sessions) in the file manager. */
  openWeftHome(): void;
}

export interface MenuModel {
  platform: string;
  appName: string;
  /** Most recent first. */
  recentProjects: readonly string[];
  /** Reload and devtools entries appear only in development. */
  devTools: boolean;
}

export function buildMenuTemplate(model: MenuModel, actions: MenuActions): MenuItemConstructorOptions[] {
  const isMac = model.platform === 'darwin';
  const recent: MenuItemConstructorOptions[] =
    model.recentProjects.length === 0
      ? [{ label: 'No Recent Projects', enabled: false }]
      : model.recentProjects.map((path) => ({ label: path, click: () => actions.openRecent(path) }));

  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'New Thread', accelerator: 'CmdOrCtrl+N', click: () => actions.newThread() },
      { label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => actions.openFolder() },
      {
        label: 'Open Recent',
        submenu: [
          ...recent,
          { type: 'separator' },
          { label: 'Clear Recent', enabled: model.recentProjects.length > 0, click: () => actions.clearRecent() },
        ],
      },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };

  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...(model.devTools
        ? ([
            { role: 'reload' },
            { role: 'forceReload' },
            { role: 'toggleDevTools' },
            { type: 'separator' },
          ] satisfies MenuItemConstructorOptions[])
        : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };

  const window: MenuItemConstructorOptions = {
    role: 'windowMenu',
  };

  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      { label: 'Open Weft Home Folder', click: () => actions.openWeftHome() },
      ...(isMac ? [] : ([{ type: 'separator' }, { role: 'about' }] satisfies MenuItemConstructorOptions[])),
    ],
  };

  const template: MenuItemConstructorOptions[] = [file, { role: 'editMenu' }, view, window, help];
  if (isMac) template.unshift({ label: model.appName, role: 'appMenu' });
  return template;
}
