// Known-safe commands: read-only programs that may run without asking even under `untrusted`
// (Codex's list, Linux variant). They still run inside the sandbox when there is one.
//
// Stricter than Codex in two places: the program must be a bare name or an absolute path in a system
// folder (a `./ls` from the workspace is not `ls`), and `uniq` with an output file is not safe.
import { basename } from 'node:path';
import { canParseSync, parseShellScript, parseShellScriptSync, splitShellWrapper } from './shell-parse';
import { SYSTEM_BIN_DIRS } from './system-bins';

const ALWAYS_SAFE = new Set([
  'cat',
  'cd',
  'cut',
  'echo',
  'expr',
  'false',
  'grep',
  'head',
  'id',
  'ls',
  'nl',
  'paste',
  'pwd',
  'rev',
  'seq',
  'stat',
  'tail',
  'tr',
  'true',
  'uname',
  'wc',
  'which',
  'whoami',
  'numfmt',
  'tac',
]);

/**
 * The program name of `argv[0]` for classification: the word itself when it has no slash, the
 * basename when it is an absolute path in a system folder, else null (a program of unknown origin).
 */
export function programName(program: string): string | null {
  if (!program.includes('/')) return program === 'zsh' ? 'bash' : program;
  const name = basename(program);
  if (!SYSTEM_BIN_DIRS.some((dir) => program === `${dir}/${name}`)) return null;
  return name === 'zsh' ? 'bash' : name;
}

/**
 * Whether `argv` is a known-safe command. A `bash|sh|zsh -c|-lc <script>` wrapper is safe when its
 * script is plain and every command in it is safe; this needs the bash grammar loaded (see
 * `loadShellParser`), otherwise a wrapper counts as not safe.
 */
export function isKnownSafeCommand(argv: readonly string[], where: KnownSafeWhere = 'sandboxed'): boolean {
  return isSafe(argv, 0, where);
}

/**
 * Where a known-safe command would run. Outside the sandbox git does not count: what it runs is
 * steered by repository config (`core.fsmonitor`, `diff.external`, textconv, the pager) that a model
 * may have written into any repository it can write, a nested one included.
 */
export type KnownSafeWhere = 'sandboxed' | 'unsandboxed';

/** Whether every command of a plain script is known-safe (false for scripts that are not plain). */
export async function isKnownSafeScript(script: string): Promise<boolean> {
  const argvs = await parseShellScript(script);
  return argvs !== null && argvs.every((argv) => isKnownSafeCommand(argv));
}

const MAX_WRAPPER_DEPTH = 3;

function isSafe(argv: readonly string[], depth: number, where: KnownSafeWhere): boolean {
  const [program, ...args] = argv;
  if (program === undefined) return false;
  const wrapper = splitShellWrapper(argv);
  if (wrapper !== null) {
    if (depth >= MAX_WRAPPER_DEPTH || !canParseSync(wrapper.script)) return false;
    const inner = parseShellScriptSync(wrapper.script);
    return inner !== null && inner.every((cmd) => isSafe(cmd, depth + 1, where));
  }
  const name = programName(program);
  if (name === null) return false;
  if (ALWAYS_SAFE.has(name)) return true;
  switch (name) {
    case 'base64':
      return !args.some((a) => a === '-o' || a === '--output' || a.startsWith('--output=') || /^-o./.test(a));
    case 'find':
      return !args.some((a) => UNSAFE_FIND_OPTIONS.has(a));
    case 'rg':
      return isSafeRipgrep(args);
    case 'git':
      return where === 'sandboxed' && isSafeGit(args);
    case 'sed':
      return isSafeSed(args);
    case 'uniq':
      return args.filter((a) => !a.startsWith('-')).length <= 1;
    default:
      return false;
  }
}

const UNSAFE_FIND_OPTIONS = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fls',
  '-fprint',
  '-fprint0',
  '-fprintf',
]);

function isSafeRipgrep(args: readonly string[]): boolean {
  return !args.some((a) => {
    if (a === '--pre' || a.startsWith('--pre=')) return true;
    if (a === '--hostname-bin' || a.startsWith('--hostname-bin=')) return true;
    if (a === '--search-zip') return true;
    // -z alone or inside a cluster of short flags (-zi, -iz).
    return /^-[A-Za-z]+$/.test(a) && a.includes('z');
  });
}

/** `sed -n Np` / `sed -n M,Np`, optionally followed by one file. */
function isSafeSed(args: readonly string[]): boolean {
  if (args.length < 2 || args.length > 3) return false;
  return args[0] === '-n' && /^\d+(,\d+)?p$/.test(args[1] ?? '');
}

const GIT_SAFE_SUBCOMMANDS = new Set(['status', 'log', 'diff', 'show', 'branch']);
/** Global options that make git run other programs, read other configs or write elsewhere. */
const GIT_UNSAFE_GLOBALS = [
  '-c',
  '--config-env',
  '--exec-path',
  '--git-dir',
  '--namespace',
  '--super-prefix',
  '--work-tree',
];
/** Global options that consume the next word as their value. */
const GIT_GLOBALS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--config-env',
  '--git-dir',
  '--namespace',
  '--super-prefix',
  '--work-tree',
  '--list-cmds',
]);
const GIT_UNSAFE_ARGS = ['--output', '--ext-diff', '--textconv', '--exec', '--paginate'];
const GIT_BRANCH_READ_ONLY = new Set([
  '--list',
  '-l',
  '--show-current',
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-v',
  '-vv',
  '--verbose',
]);

function isSafeGit(args: readonly string[]): boolean {
  let i = 0;
  while (i < args.length) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('-')) break;
    if (GIT_UNSAFE_GLOBALS.some((opt) => arg === opt || arg.startsWith(`${opt}=`))) return false;
    if (arg === '-p' || arg === '--paginate') return false;
    if (arg.startsWith('-c') && arg.length > 2) return false;
    i += GIT_GLOBALS_WITH_VALUE.has(arg) ? 2 : 1;
  }
  const subcommand = args[i];
  if (subcommand === undefined || !GIT_SAFE_SUBCOMMANDS.has(subcommand)) return false;
  const rest = args.slice(i + 1);
  if (rest.some((a) => GIT_UNSAFE_ARGS.some((opt) => a === opt || a.startsWith(`${opt}=`)))) return false;
  if (subcommand === 'branch') {
    return rest.every((a) => GIT_BRANCH_READ_ONLY.has(a) || a.startsWith('--format='));
  }
  return true;
}
