import { beforeAll, describe, expect, it } from 'vitest';
import {
  canParseSync,
  commandWords,
  grammarCommandWords,
  grammarCommands,
  loadShellParser,
  parseShellScript,
  scriptForArgv,
  simpleScript,
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

describe('simple scripts, read without the grammar', () => {
  // A small seeded generator: the same scripts every run.
  let seed = 0x5eed;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  // Mostly pieces of simple scripts, with now and then one that is not (or that the grammar reads oddly).
  const WORDS = [
    'ls',
    '-la',
    'git',
    'status',
    'npm',
    'test',
    'src/a.ts',
    './x',
    '../y',
    'a,b',
    'x:y',
    '@s',
    '%1',
    '+x',
    '--',
    '-',
    '5',
    '0',
    'echo',
    'a=b',
    "'q q'",
    "''",
    '""',
    '"d d"',
    '"a=b"',
    "'$x'",
    "'it''s'",
    "'é ü'",
    '"日本"',
    'a"b"c',
    "x'y'z",
    'status@s',
    'a.b-c_d',
    'A/B',
    'x+y',
    '"#"',
    "'|'",
    '";"',
    "'&&'",
  ];
  const ODD = [
    'FOO=1',
    '"$x"',
    '"a\\b"',
    '"!"',
    'if',
    'then',
    'done',
    'for',
    'in',
    'time',
    'fi',
    'x#y',
    '#c',
    '~',
    '~/x',
    'a*',
    '{a,b}',
    '[x]',
    '$HOME',
    '\\x',
    'é',
    "'a\nb'",
    '(',
    ')',
    '<',
    '>',
    '2>&1',
    '!',
    'case',
    'esac',
    '!x',
    'a@b',
  ];
  const NAMES = ['ls', 'git', 'npm', 'echo', 'cat', './run.sh', 'a.b-c_d', 'x+y', '"ls"', "'git'", 'pwd'];
  const OPERATORS = [' && ', '&&', ' || ', '||', '; ', ';', ' | ', '|'];
  const ODD_GLUE = [';;', ' & ', '\n', ' ;', '| |', ' && && ', '', '\t'];
  const pick = (list: readonly string[]): string => list[rand(list.length)] ?? '';
  const piece = (): string => (rand(12) === 0 ? pick(ODD) : pick(WORDS));
  const command = (): string => {
    let out = rand(12) === 0 ? piece() : pick(NAMES);
    const n = rand(4);
    for (let i = 0; i < n; i++) out += (rand(6) === 0 ? pick(['', '\t', '  ']) : ' ') + piece();
    return out;
  };
  const script = (): string => {
    let out = command();
    const n = rand(4);
    for (let i = 0; i < n; i++) out += (rand(12) === 0 ? pick(ODD_GLUE) : pick(OPERATORS)) + command();
    return out;
  };

  it('reads every simple script as the grammar does, and leaves the rest to it', () => {
    let simple = 0;
    let checked = 0;
    const seen = new Set<string>();
    for (let k = 0; k < 6000; k++) {
      const s = script();
      if (seen.has(s)) continue;
      seen.add(s);
      checked++;
      const fast = simpleScript(s);
      if (fast === null) continue;
      simple++;
      // The grammar agrees, as a plain script and as the words of every command.
      expect({ s, words: grammarCommands(s) }).toEqual({ s, words: fast });
      expect({ s, words: grammarCommandWords(s) }).toEqual({ s, words: fast });
    }
    // Both kinds are well represented.
    expect(simple).toBeGreaterThan(checked / 5);
    expect(checked - simple).toBeGreaterThan(checked / 5);
  });

  it.each<[string, string[][] | null]>([
    ['echo hi', [['echo', 'hi']]],
    [
      'cd src && npm test -- --run',
      [
        ['cd', 'src'],
        ['npm', 'test', '--', '--run'],
      ],
    ],
    ["git commit -m 'fix: a=b'", [['git', 'commit', '-m', 'fix: a=b']]],
    [
      'rg "two words" src | head -5',
      [
        ['rg', 'two words', 'src'],
        ['head', '-5'],
      ],
    ],
    ['FOO=1 make', null],
    ['echo "$HOME"', null],
    ['ls &', null],
    ['ls;', null],
    ['if true; then ls; fi', null],
    ['ls > out', null],
    ['ls ~', null],
    ['', null],
  ])('%j', (s, expected) => {
    expect(simpleScript(s)).toEqual(expected);
  });

  it('needs no grammar for a simple script, so a wrapper of one is known safe before the grammar loads', async () => {
    const { isKnownSafeCommand } = await import('../../../src-main/safety/approvals/known-safe');
    expect(canParseSync('ls -la && pwd')).toBe(true);
    expect(isKnownSafeCommand(['bash', '-lc', 'ls -la && pwd'])).toBe(true);
    expect(await parseShellScript('ls -la && pwd')).toEqual([['ls', '-la'], ['pwd']]);
  });
});
