import { describe, expect, it } from 'vitest';
import { buildMenuTemplate } from '../../../src-main/electron/menu-template';
import type { MenuActions } from '../../../src-main/electron/menu-template';

// Electron's MenuItemConstructorOptions, without importing electron here (tests may not).
type MenuItemConstructorOptions = ReturnType<typeof buildMenuTemplate>[number];

function recorder(): { actions: MenuActions; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    actions: {
      openFolder: () => calls.push('openFolder'),
      openRecent: (path) => calls.push(`openRecent ${path}`),
      clearRecent: () => calls.push('clearRecent'),
      newThread: () => calls.push('newThread'),
      openWeftHome: () => calls.push('openWeftHome'),
    },
  };
}

function submenu(item: MenuItemConstructorOptions | undefined): MenuItemConstructorOptions[] {
  return Array.isArray(item?.submenu) ? item.submenu : [];
}

function find(items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions | undefined {
  return items.find((item) => item.label === label);
}

function click(item: MenuItemConstructorOptions | undefined): void {
  // The menu passes Electron objects to click handlers; ours ignore them.
  (item?.click as (() => void) | undefined)?.();
}

describe('buildMenuTemplate', () => {
  it('has File, Edit, View, Window and Help, plus the app menu on macOS', () => {
    const { actions } = recorder();
    const linux = buildMenuTemplate(
      { platform: 'linux', appName: 'Weft', recentProjects: [], devTools: false },
      actions,
    );
    expect(linux.map((item) => item.label ?? item.role)).toEqual(['File', 'editMenu', 'View', 'windowMenu', 'help']);
    const mac = buildMenuTemplate(
      { platform: 'darwin', appName: 'Weft', recentProjects: [], devTools: false },
      actions,
    );
    expect(mac.map((item) => item.role ?? item.label)).toEqual([
      'appMenu',
      'File',
      'editMenu',
      'View',
      'windowMenu',
      'help',
    ]);
  });

  it('File opens folders, recent projects and new threads', () => {
    const { actions, calls } = recorder();
    const template = buildMenuTemplate(
      { platform: 'linux', appName: 'Weft', recentProjects: ['/src/b', '/src/a'], devTools: false },
      actions,
    );
    const file = submenu(find(template, 'File'));
    click(find(file, 'Open Folder…'));
    click(find(file, 'New Thread'));
    const recent = submenu(find(file, 'Open Recent'));
    expect(recent.map((item) => item.label ?? item.type)).toEqual(['/src/b', '/src/a', 'separator', 'Clear Recent']);
    click(recent[1]);
    click(find(recent, 'Clear Recent'));
    expect(calls).toEqual(['openFolder', 'newThread', 'openRecent /src/a', 'clearRecent']);
    expect(find(file, 'Open Folder…')?.accelerator).toBe('CmdOrCtrl+O');
  });

  it('an empty recent list says so and cannot be cleared', () => {
    const { actions } = recorder();
    const file = submenu(
      find(
        buildMenuTemplate({ platform: 'linux', appName: 'Weft', recentProjects: [], devTools: false }, actions),
        'File',
      ),
    );
    const recent = submenu(find(file, 'Open Recent'));
    expect(recent.map((item) => [item.label ?? item.type, item.enabled])).toEqual([
      ['No Recent Projects', false],
      ['separator', undefined],
      ['Clear Recent', false],
    ]);
  });

  it('offers reload and devtools only in development', () => {
    const { actions } = recorder();
    const roles = (devTools: boolean): unknown[] =>
      submenu(
        find(buildMenuTemplate({ platform: 'linux', appName: 'Weft', recentProjects: [], devTools }, actions), 'View'),
      ).map((item) => item.role);
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(false)).not.toContain('reload');
    expect(roles(true)).toEqual(expect.arrayContaining(['reload', 'forceReload', 'toggleDevTools']));
  });
});
