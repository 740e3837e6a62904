import { describe, expect, it } from 'vitest';
import {
  environmentParam,
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

  it("gives a thread its environment's project", () => {
    const worktree = { path: '/w/app-1', branch: 'weft/1', baseRef: 'main', projectRoot: '/srv/app' };
    expect([
      threadFolderKey({ cwd: '/srv/app' }),
      threadFolderKey({ cwd: '/srv/app', weftEnvironment: 'box' }),
      projectOf({ cwd: '/w/app-1', weftWorktree: worktree, weftEnvironment: 'box' }),
      projectOf({ cwd: '/w/app-1', weftWorktree: worktree }),
    ]).toEqual(['/srv/app', 'box:/srv/app', 'box:/srv/app', '/srv/app']);
  });
});
