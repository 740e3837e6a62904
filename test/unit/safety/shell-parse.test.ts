import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandWords,
  loadShellParser,
  parseShellScript,
  scriptForArgv,
  splitShellWrapper,
} from '../../../src-main/safety/approvals/shell-parse';

beforeAll(async () => {
  await loadShellParser();
});

describe('parseShellScript', () => {
  it.each<[string, string[][]]>([
    ['ls -la', [['ls', '-la']]],
    [
      'ls -la && echo \'a b\' "c" | wc -l; git status || true',
      [['ls', '-la'], ['echo', 'a b', 'c'], ['wc', '-l'], ['git', 'status'], ['true']],
    ],
    ['ls\npwd', [['ls'], ['pwd']]],
    ['echo \'x\'"y"z', [['echo', 'xyz']]],
    ['echo a\\ b \\$HOME', [['echo', 'a b', '$HOME']]],
    ['echo "a\\"b \\$x \\\\ \\n"', [['echo', 'a"b $x \\ \\n']]],
    ['"ls" -- "" x', [['ls', '--', '', 'x']]],
    ['head -n 5 file', [['head', '-n', '5', 'file']]],
    ['git log HEAD~3', [['git', 'log', 'HEAD~3']]],
    ['ls # a comment', [['ls']]],
  ])('plain: %j', async (script, expected) => {
    expect(await parseShellScript(script)).toEqual(expected);
  });

  it.each([
    'ls $(rm -rf /)',
    'ls `id`',
    'echo "$HOME"',
    'echo ${x}',
    'echo $((1+1))',
    'cat foo > bar',
    'ls 2>/dev/null',
    'cat <<EOF\nx\nEOF',
    'cat < input',
    'FOO=1 ls',
    'x=1',
    'ls &',
    'ls & rm x',
    '(ls)',
    '{ ls; }',
    '! ls',
    'ls |& cat',
    'if true; then ls; fi',
    'f() { ls; }',
    'echo <(ls)',
    'ls *.ts',
    'ls ~/x',
    'echo {a,b}',
    "echo $'a\\nb'",
    'ls &&',
    'echo "unterminated',
    'ls;;',
    '',
  ])('not plain: %j', async (script) => {
    expect(await parseShellScript(script)).toBeNull();
  });
});

describe('commandWords', () => {
  it('finds commands inside substitutions, subshells and redirections', async () => {
    expect(await commandWords('ls $(rm -rf /) > out; (cd x && git push -f)')).toEqual([
      ['ls', '$(rm -rf /)'],
      ['rm', '-rf', '/'],
      ['cd', 'x'],
      ['git', 'push', '-f'],
    ]);
  });
});

describe('splitShellWrapper', () => {
  it('recognises bash/sh/zsh -c/-lc', () => {
    expect(splitShellWrapper(['bash', '-lc', 'ls'])).toEqual({ shell: 'bash', login: true, script: 'ls' });
    expect(splitShellWrapper(['/bin/sh', '-c', 'ls'])).toEqual({ shell: 'sh', login: false, script: 'ls' });
    expect(splitShellWrapper(['zsh', '-lc', 'x'])).toEqual({ shell: 'zsh', login: true, script: 'x' });
  });

  it('rejects anything else', () => {
    expect(splitShellWrapper(['bash', 'script.sh'])).toBeNull();
    expect(splitShellWrapper(['bash', '-lc', 'ls', 'extra'])).toBeNull();
    expect(splitShellWrapper(['python', '-c', 'x'])).toBeNull();
    expect(splitShellWrapper(['./bash', '-c', 'x'])).toBeNull();
    expect(splitShellWrapper(['bash', '-x', 'ls'])).toBeNull();
  });
});

describe('scriptForArgv', () => {
  it('unwraps shell wrappers and quotes other argvs so they parse back', async () => {
    expect(scriptForArgv(['bash', '-lc', 'ls && pwd'])).toBe('ls && pwd');
    const argv = ['grep', '-n', "it's", 'a b', '$HOME', '*.ts', ''];
    const script = scriptForArgv(argv);
    expect(script).toBe("grep -n 'it'\\''s' 'a b' '$HOME' '*.ts' ''");
    expect(await parseShellScript(script)).toEqual([argv]);
  });
});
