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

describe('keptFileDiff', () => {
  it("keeps each hunk's heading, moves later hunks, and keeps a cut diff's marker line", () => {
    const cut = [
      '--- a/big.txt',
      '+++ b/big.txt',
      '@@ -2,0 +3,2 @@ section',
      '+x',
      '+y',
      '@@ -5 +7 @@ other',
      '-e',
      '+E',
      '~ Weft left out 8 of 10 hunks: diffs are cut at 1 MiB (the whole diff: 1 file, +12 −9 lines).',
      '',
    ].join('\n');
    expect(keptFileDiff(cut, new Set([0]), '/w/big.txt')).toBe(
      [
        'diff --git a/big.txt b/big.txt',
        '--- a/big.txt',
        '+++ b/big.txt',
        '@@ -5 +5 @@ other',
        '-e',
        '+E',
        '~ Weft left out 8 of 10 hunks: diffs are cut at 1 MiB (the whole diff: 1 file, +12 −9 lines).',
        '',
      ].join('\n'),
    );
  });

  it('names a diff of hunks alone (Codex) by the change path', () => {
    expect(keptFileDiff('@@ -1 +1 @@\n-a\n+b\n', new Set(), '/w/x.txt')).toBe(
      'diff --git a/w/x.txt b/w/x.txt\n--- a/w/x.txt\n+++ b/w/x.txt\n@@ -1 +1 @@\n-a\n+b\n',
    );
  });
});
