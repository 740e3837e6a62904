// A turn's diff rebuilt from the patches that landed, for rollouts that do not record one.
import { describe, expect, it } from 'vitest';
import type { ThreadItem } from '../../../src-preload/protocol';
import { diffFromFileChanges, keptFileDiff } from '../../../src-main/store/turn-diff-rebuild';

const UPDATE = [
  '--- a/notes.txt',
  '+++ b/notes.txt',
  '@@ -1,3 +1,4 @@',
  ' one',
  '+one and a half',
  ' two',
  ' three',
  '@@ -20,3 +21,3 @@',
  ' twenty',
  '-twenty-one',
  '+TWENTY-ONE',
  ' twenty-two',
  '',
].join('\n');
const ADD = ['--- /dev/null', '+++ b/fresh.txt', '@@ -0,0 +1,2 @@', '+a', '+b', ''].join('\n');

describe('diffFromFileChanges', () => {
  it('lists the files of completed patches as git sections, without declined hunks', () => {
    const items: ThreadItem[] = [
      {
        type: 'fileChange',
        id: 'p1',
        status: 'completed',
        changes: [
          { path: '/w/notes.txt', kind: { type: 'update', move_path: null }, diff: UPDATE },
          { path: '/w/fresh.txt', kind: { type: 'add' }, diff: ADD },
        ],
        weftDeclined: [{ path: '/w/notes.txt', hunk: 0 }],
      },
      {
        type: 'fileChange',
        id: 'p2',
        status: 'declined',
        changes: [{ path: '/w/other.txt', kind: { type: 'add' }, diff: ADD }],
      },
    ];
    expect(diffFromFileChanges(items)).toBe(
      [
        'diff --git a/notes.txt b/notes.txt',
        '--- a/notes.txt',
        '+++ b/notes.txt',
        // The declined first hunk added a line: the second one's new side moves up by one.
        '@@ -20,3 +20,3 @@',
        ' twenty',
        '-twenty-one',
        '+TWENTY-ONE',
        ' twenty-two',
        'diff --git a/fresh.txt b/fresh.txt',
        '--- /dev/null',
        '+++ b/fresh.txt',
        '@@ -0,0 +1,2 @@',
        '+a',
        '+b',
        '',
      ].join('\n'),
    );
  });

  it('is null when nothing landed', () => {
    expect(diffFromFileChanges([{ type: 'agentMessage', id: 'm', text: 'hi', phase: null }])).toBeNull();
    expect(keptFileDiff(ADD, new Set([0]), '/w/fresh.txt')).toBeNull();
  });
});
