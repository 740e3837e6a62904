import { describe, expect, it } from 'vitest';
import {
  firstAppArgIndex,
  forwardedLaunch,
  parseLaunchArgs,
  readSecondLaunch,
} from '../../../src-main/electron/launch-args';

describe('parseLaunchArgs', () => {
  it('`weft .` opens the working directory (packaged: arguments start after the executable)', () => {
    const start = firstAppArgIndex(false);
    expect(parseLaunchArgs(['/opt/Weft/weft', '.'], start, '/home/me/src/app')).toEqual({
      folders: ['/home/me/src/app'],
    });
  });

  it('in development skips `electron .` itself', () => {
    const start = firstAppArgIndex(true);
    expect(parseLaunchArgs(['/x/electron', '.', '../other'], start, '/home/me/src/app')).toEqual({
      folders: ['/home/me/src/other'],
    });
    expect(parseLaunchArgs(['/x/electron', '.'], start, '/home/me')).toEqual({ folders: [] });
  });

  it('resolves relative and absolute folders, keeps order, drops repeats', () => {
    expect(parseLaunchArgs(['weft', 'a', '/abs/b/', './a', '/abs/b/../c'], 1, '/w')).toEqual({
      folders: ['/w/a', '/abs/b', '/abs/c'],
    });
  });

  it('skips Chromium, Electron and macOS switches, and treats everything after -- as a folder', () => {
    expect(
      parseLaunchArgs(
        ['weft', '--inspect=9229', '-psn_0_12345', '--no-sandbox', 'proj', '--', '--odd-folder-name', '-x'],
        1,
        '/w',
      ),
    ).toEqual({ folders: ['/w/proj', '/w/--odd-folder-name', '/w/-x'] });
  });

  it('ignores empty arguments', () => {
    expect(parseLaunchArgs(['weft', ''], 1, '/w')).toEqual({ folders: [] });
  });
});

describe('second launches', () => {
  it('the running app takes the folders the second launch resolved itself', () => {
    const data = forwardedLaunch(parseLaunchArgs(['weft', '.'], 1, '/home/me/proj'));
    expect(data).toEqual({ weftLaunch: 1, folders: ['/home/me/proj'] });
    // The forwarded command line may have been reordered by Chromium; the additional data wins.
    expect(readSecondLaunch(data, ['weft', '--some-switch', 'garbage'], '/elsewhere', 1)).toEqual({
      folders: ['/home/me/proj'],
    });
  });

  it('falls back to the command line when the additional data is missing or not ours', () => {
    for (const data of [
      undefined,
      null,
      { weftLaunch: 2, folders: [] },
      { weftLaunch: 1, folders: ['relative'] },
      'x',
    ]) {
      expect(readSecondLaunch(data, ['weft', 'sub'], '/cwd', 1)).toEqual({ folders: ['/cwd/sub'] });
    }
  });
});
