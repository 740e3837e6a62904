import { beforeAll, describe, expect, it } from 'vitest';
import { dangerReason, isDangerousCommand, isDangerousScript } from '../../../src-main/safety/approvals/dangerous';
import { loadShellParser } from '../../../src-main/safety/approvals/shell-parse';

beforeAll(async () => {
  await loadShellParser();
});

describe('isDangerousCommand', () => {
  it.each<string[]>([
    ['rm', '-rf', 'build'],
    ['rm', '-fr', 'x'],
    ['rm', '-r', 'x'],
    ['rm', '-R', 'x'],
    ['rm', '-f', 'x'],
    ['rm', '-vrf', 'x'],
    ['rm', '--recursive', '--force', 'x'],
    ['rm', '--force', 'x'],
    ['/bin/rm', '-rf', '/'],
    ['sudo', 'ls'],
    ['sudo', '-u', 'root', 'rm', 'x'],
    ['doas', 'reboot'],
    ['git', 'reset', '--hard'],
    ['git', 'reset', '--hard', 'HEAD~1'],
    ['git', 'push', '--force'],
    ['git', 'push', '-f', 'origin', 'main'],
    ['git', 'push', '--force-with-lease'],
    ['git', 'push', '--force-with-lease=main:abc'],
    ['git', 'push', 'origin', '+main'],
    ['git', 'push', 'origin', ':old-branch'],
    ['git', 'push', '--delete', 'origin', 'x'],
    ['git', '-C', 'repo', 'push', '--force'],
    ['git', 'clean', '-fdx'],
    ['git', 'clean', '--force'],
    ['git', 'checkout', '--', '.'],
    ['git', 'checkout', '.'],
    ['git', 'checkout', 'HEAD', '--', 'file'],
    ['git', 'restore', '.'],
    ['git', 'restore', '--staged', '--worktree', 'x'],
    ['git', 'stash', 'drop'],
    ['git', 'branch', '-D', 'feature'],
    ['mkfs.ext4', '/dev/sda1'],
    ['mkfs', '-t', 'ext4', '/dev/sda1'],
    ['dd', 'if=/dev/zero', 'of=/dev/sda'],
    ['shred', 'secret'],
    ['chmod', '-R', '777', '/'],
    ['chown', '--recursive', 'me', '.'],
    ['find', '.', '-delete'],
    ['find', '.', '-exec', 'rm', '-rf', '{}', '+'],
    ['env', 'FOO=1', 'rm', '-rf', 'x'],
    ['timeout', '5', 'rm', '-rf', 'x'],
    ['nice', '-n', '10', 'rm', '-rf', 'x'],
    ['xargs', '-0', 'rm', '-f'],
    ['bash', '-lc', 'ls && rm -rf x'],
    ['bash', '-c', 'echo $(rm -rf ~)'],
    ['sh', '-c', 'rm -rf "$1"', '_', '/'],
    ['eval', 'rm', '-rf', 'x'],
    ['shutdown', 'now'],
  ])('dangerous: %j', (...argv) => {
    expect(isDangerousCommand(argv)).toBe(true);
  });

  it.each<string[]>([
    ['rm', 'file.txt'],
    ['rm', '-i', 'file.txt'],
    ['rm', '--', '-rf'],
    ['ls', '-rf'],
    ['git', 'reset', 'HEAD~1'],
    ['git', 'reset', '--soft', 'HEAD~1'],
    ['git', 'push', 'origin', 'main'],
    ['git', 'push', '-u', 'origin', 'main'],
    ['git', 'clean', '-n'],
    ['git', 'checkout', 'main'],
    ['git', 'checkout', '-b', 'feature'],
    ['git', 'restore', '--staged', 'x'],
    ['git', 'stash', 'pop'],
    ['git', 'branch', '-d', 'merged'],
    ['dd', 'if=/dev/zero', 'count=1'],
    ['chmod', '+x', 'script.sh'],
    ['find', '.', '-name', 'x'],
    ['env', 'FOO=1', 'ls'],
    ['bash', '-lc', 'ls && pwd'],
    [],
  ])('not dangerous: %j', (...argv) => {
    expect(isDangerousCommand(argv)).toBe(false);
  });

  it('explains why', () => {
    expect(dangerReason(['git', 'reset', '--hard'])).toBe('`git reset --hard` discards uncommitted changes');
  });
});

describe('isDangerousScript', () => {
  it.each<[string, boolean]>([
    ['rm -rf build', true],
    ['ls && rm -rf x', true],
    ['ls $(rm -rf /)', true],
    ['echo `sudo id`', true],
    ['(cd sub && git push --force)', true],
    ['for f in *; do rm -f "$f"; done', true],
    ["bash -lc 'git reset --hard'", true],
    ['ls -la && git status', false],
    ['rm old.txt', false],
    ['echo "rm -rf /"', false],
  ])('%j → %s', async (script, dangerous) => {
    expect(await isDangerousScript(script)).toBe(dangerous);
  });
});
