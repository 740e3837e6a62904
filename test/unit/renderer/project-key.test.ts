import { describe, expect, it } from 'vitest';
import type { WeftFork } from '../../../src-preload/protocol';
import { projectScope } from '../../../src-renderer/store/list-loader';
import {
  environmentParam,
  failureOn,
  folderParams,
  localFolder,
  projectKey,
  projectPlace,
  threadFolderKey,
} from '../../../src-renderer/store/project-key';
import { projectOf } from '../../../src-renderer/store/thread-list';

describe('project keys', () => {
  it('names a local folder by its path and a folder on an environment by NAME:path', () => {
    expect([projectKey(null, '/srv/app'), projectKey(undefined, '/srv/app'), projectKey('box', '/srv/app')]).toEqual([
      '/srv/app',
      '/srv/app',
      'box:/srv/app',
    ]);
    expect(['/srv/app', 'box:/srv/app', 'pod-1.a_b:/a:b', '/a:b'].map(projectPlace)).toEqual([
      { environment: null, folder: '/srv/app' },
      { environment: 'box', folder: '/srv/app' },
      { environment: 'pod-1.a_b', folder: '/a:b' },
      { environment: null, folder: '/a:b' },
    ]);
  });

  it('says what requests add, and what is read on this machine', () => {
    expect([environmentParam('/srv/app'), environmentParam('box:/srv/app')]).toEqual([{}, { weftEnvironment: 'box' }]);
    expect([localFolder('/srv/app'), localFolder('box:/srv/app'), localFolder(null)]).toEqual(['/srv/app', null, null]);
  });

  it("names a project's folder there in its requests, its forks' folders with it", () => {
    expect([folderParams('/srv/app'), folderParams('box:/srv/app')]).toEqual([
      { cwd: '/srv/app' },
      { cwd: '/srv/app', weftEnvironment: 'box' },
    ]);
    const fork: WeftFork = {
      threadId: 't2',
      parentThreadId: 't1',
      project: '/srv/app',
      cwd: '/srv/app-fork',
      folder: '/srv/app-fork',
      kind: 'worktree',
      branch: 'weft/fork',
      createdAt: '2026-01-01T00:00:00Z',
      removed: false,
    };
    expect([projectScope('box:/srv/app', {}), projectScope('box:/srv/app', { t2: fork })]).toEqual([
      { cwd: '/srv/app', weftEnvironment: 'box' },
      { cwd: ['/srv/app', '/srv/app-fork'], weftEnvironment: 'box' },
    ]);
    expect(projectScope('/srv/app', { t2: fork })).toEqual({ cwd: ['/srv/app', '/srv/app-fork'] });
  });

  it("gives a thread its environment's project", () => {
    const worktree = { path: '/w/app-1', branch: 'weft/1', baseRef: 'main', projectRoot: '/srv/app' };
    expect([
      threadFolderKey({ cwd: '/srv/app' }),
      threadFolderKey({ cwd: '/srv/app', weftEnvironment: 'box' }),
      projectOf({ cwd: '/w/app-1', weftWorktree: worktree, weftEnvironment: 'box' }),
      projectOf({ cwd: '/w/app-1', weftWorktree: worktree }),
    ]).toEqual(['/srv/app', 'box:/srv/app', 'box:/srv/app', '/srv/app']);
  });

  it('says a failure on an environment with what was not done and where, and a local one as it is', () => {
    const dropped = new Error(
      'the link to "box" dropped; "config/value/write" got no answer (it may have run on "box")',
    );
    expect(failureOn('box', dropped, 'Not saved')).toBe(
      'Not saved on box: the link to "box" dropped; "config/value/write" got no answer (it may have run on "box")',
    );
    expect(failureOn(null, new Error('disk full'), 'Not saved')).toBe('disk full');
    expect(failureOn(undefined, 'plain', 'Not saved')).toBe('plain');
  });
});
