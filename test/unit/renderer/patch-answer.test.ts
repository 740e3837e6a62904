import { describe, expect, it } from 'vitest';
import type { FileUpdateChange } from '../../../src-preload/protocol';
import { acceptedCount, buildPatchAnswer, hunkKey } from '../../../src-renderer/views/approvals/patch-answer';

const changes: FileUpdateChange[] = [
  {
    path: '/p/a.txt',
    kind: { type: 'update', move_path: null },
    diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n@@ -9 +9 @@\n-i\n+I\n',
  },
  { path: '/p/b.txt', kind: { type: 'add' }, diff: '--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n' },
];

describe('buildPatchAnswer', () => {
  it('answers with the plain decision when nothing was reviewed hunk by hunk', () => {
    expect(buildPatchAnswer(changes, new Map(), 'acceptForSession')).toEqual({ decision: 'acceptForSession' });
  });

  it('lists every hunk with its verdict and the comment of a declined hunk', () => {
    const verdicts = new Map([[hunkKey('/p/a.txt', 1), { declined: true, comment: ' keep lowercase i ' }]]);
    expect(buildPatchAnswer(changes, verdicts, 'accept')).toEqual({
      decision: 'accept',
      weftHunks: [
        { path: '/p/a.txt', hunk: 0, decision: 'accept' },
        { path: '/p/a.txt', hunk: 1, decision: 'decline', comment: 'keep lowercase i' },
        { path: '/p/b.txt', hunk: 0, decision: 'accept' },
      ],
    });
    expect(acceptedCount(changes, verdicts)).toEqual({ accepted: 2, total: 3 });
  });

  it('declines every hunk on Decline but still passes the comments on', () => {
    const verdicts = new Map([[hunkKey('/p/b.txt', 0), { declined: true, comment: 'no new files' }]]);
    expect(buildPatchAnswer(changes, verdicts, 'decline').weftHunks?.map((h) => h.decision)).toEqual([
      'decline',
      'decline',
      'decline',
    ]);
  });

  it('counts the hunks a cut diff leaves out as following Accept', () => {
    const [first] = changes;
    if (first === undefined) throw new Error('no change');
    const cut = { ...first, weftDiffCut: { files: 1, hunks: 10, shownHunks: 2, added: 10, removed: 10 } };
    const verdicts = new Map([[hunkKey('/p/a.txt', 1), { declined: true, comment: '' }]]);
    expect(acceptedCount([cut], verdicts)).toEqual({ accepted: 9, total: 10 });
  });
});
