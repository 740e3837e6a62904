import { beforeAll, describe, expect, it } from 'vitest';
import { isKnownSafeCommand, isKnownSafeScript } from '../../../src-main/safety/approvals/known-safe';
import { loadShellParser } from '../../../src-main/safety/approvals/shell-parse';

beforeAll(async () => {
  await loadShellParser();
});

describe('isKnownSafeCommand', () => {
  it.each<string[]>([
    ['ls', '-la'],
    ['cat', 'README.md'],
    ['grep', '-rn', 'TODO', 'src'],
    ['head', '-n', '20', 'x'],
    ['tail', 'x'],
    ['wc', '-l', 'x'],
    ['pwd'],
    ['echo', 'hi'],
    ['tac', 'x'],
    ['numfmt', '1000'],
    ['/usr/bin/cat', 'x'],
    ['base64', 'file'],
    ['find', '.', '-name', '*.ts'],
    ['rg', 'foo', '-n'],
    ['git', 'status'],
    ['git', 'log', '--oneline', '-5'],
    ['git', '-C', 'sub', 'diff', 'HEAD'],
    ['git', '--no-pager', 'show', 'HEAD'],
    ['git', 'branch'],
    ['git', 'branch', '-a', '-v', '--format=%(refname)'],
    ['sed', '-n', '10p', 'file'],
    ['sed', '-n', '1,20p', 'file'],
    ['uniq', 'file'],
    ['bash', '-lc', 'ls && cat x | wc -l'],
    ['zsh', '-lc', 'git status; pwd'],
  ])('safe: %j', (...argv) => {
    expect(isKnownSafeCommand(argv)).toBe(true);
  });

  it.each<string[]>([
    ['rm', 'x'],
    ['./ls'],
    ['/tmp/evil/cat', 'x'],
    ['python3', '-c', 'print(1)'],
    ['sort', '-o', 'out', 'in'],
    ['base64', '-o', 'out', 'in'],
    ['base64', '--output=out', 'in'],
    ['base64', '-oout', 'in'],
    ['find', '.', '-delete'],
    ['find', '.', '-exec', 'rm', '{}', ';'],
    ['find', '.', '-fprint', 'out'],
    ['rg', '--pre', 'sh', 'x'],
    ['rg', '--pre=./x', 'foo'],
    ['rg', '-z', 'foo'],
    ['rg', '-iz', 'foo'],
    ['rg', '--search-zip', 'foo'],
    ['rg', '--hostname-bin=x', 'foo'],
    ['git', '-c', 'core.pager=x', 'log'],
    ['git', '-ccore.pager=x', 'log'],
    ['git', '--git-dir=/x', 'status'],
    ['git', '--work-tree', '/x', 'status'],
    ['git', '--exec-path=/x', 'status'],
    ['git', '-p', 'log'],
    ['git', 'log', '--output=/tmp/x'],
    ['git', 'diff', '--ext-diff'],
    ['git', 'show', '--textconv'],
    ['git', 'branch', 'new-branch'],
    ['git', 'branch', '-D', 'x'],
    ['git', 'push'],
    ['git', 'commit', '-m', 'x'],
    ['git'],
    ['sed', '-i', 's/a/b/', 'file'],
    ['sed', '-n', '1p;w out', 'file'],
    ['sed', '-n', '1p', 'a', 'b'],
    ['uniq', 'in', 'out'],
    ['bash', '-lc', 'ls && rm -rf x'],
    ['bash', '-lc', 'ls $(rm -rf /)'],
    ['bash', '-lc', 'cat foo > bar'],
    ['bash', '-lc', 'ls &'],
    ['bash', 'script.sh'],
    [],
  ])('not safe: %j', (...argv) => {
    expect(isKnownSafeCommand(argv)).toBe(false);
  });
});

describe('isKnownSafeScript', () => {
  it.each<[string, boolean]>([
    ['ls -la && git status', true],
    ['cat a | grep b | wc -l', true],
    ["sed -n '1,5p' file; pwd", true],
    ['ls $(rm -rf /)', false],
    ['cat foo > bar', false],
    ['find . -delete', false],
    ['git -c core.pager=x log', false],
    ['ls && rm -rf x', false],
    ["bash -lc 'ls && rm -rf x'", false],
    ["bash -lc 'ls && pwd'", true],
    ['FOO=1 ls', false],
    ['ls *', false],
  ])('%j → %s', async (script, safe) => {
    expect(await isKnownSafeScript(script)).toBe(safe);
  });
});
