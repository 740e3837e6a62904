// Seeing through command prefixes and nested shells: `env X=1 timeout 5 rm -rf x` runs `rm -rf x`,
// `bash -c 'ls; curl x'` runs `ls` and `curl x`. Used to find dangerous commands and forbidden or
// prompt rules wherever a command hides; best effort, erring towards finding more commands.
import { basename } from 'node:path';
import { commandWordsSync } from './shell-parse';

/**
 * `argv` followed by every command it runs through prefixes and nested shell scripts (recursively,
 * a few levels deep).
 */
export function expandCommand(argv: readonly string[], depth = 0): string[][] {
  const out: string[][] = [[...argv]];
  if (depth > 4) return out;
  const [program, ...args] = argv;
  if (program === undefined) return out;
  const name = basename(program);
  const unwrapped = unwrapPrefix(name, args);
  if (unwrapped !== null) {
    if (unwrapped.length > 0) out.push(...expandCommand(unwrapped, depth + 1));
    return out;
  }
  const script = innerScript(name, args);
  if (script !== null) for (const inner of scriptCommands(script)) out.push(...expandCommand(inner, depth + 1));
  return out;
}

/** Options of prefix programs that take a value (the next word). */
const PREFIXES: Record<string, { withValue: Set<string>; positionals: number }> = {
  env: { withValue: new Set(['-u', '--unset', '-C', '--chdir']), positionals: 0 },
  nice: { withValue: new Set(['-n', '--adjustment']), positionals: 0 },
  nohup: { withValue: new Set(), positionals: 0 },
  time: { withValue: new Set(['-f', '--format', '-o', '--output']), positionals: 0 },
  command: { withValue: new Set(), positionals: 0 },
  builtin: { withValue: new Set(), positionals: 0 },
  exec: { withValue: new Set(['-a']), positionals: 0 },
  setsid: { withValue: new Set(), positionals: 0 },
  stdbuf: { withValue: new Set(['-i', '-o', '-e']), positionals: 0 },
  ionice: { withValue: new Set(['-c', '-n', '-p', '-P', '-u']), positionals: 0 },
  timeout: { withValue: new Set(['-s', '--signal', '-k', '--kill-after']), positionals: 1 },
  xargs: {
    withValue: new Set([
      '-I',
      '-n',
      '-P',
      '-L',
      '-s',
      '-d',
      '-E',
      '-a',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
    ]),
    positionals: 0,
  },
};

/** The command a prefix program runs (`env FOO=1 rm -rf x` → `rm -rf x`); null when `name` is no prefix. */
export function unwrapPrefix(name: string, args: readonly string[]): string[] | null {
  const spec = PREFIXES[name];
  if (spec === undefined) return null;
  let i = 0;
  let positionals = spec.positionals;
  while (i < args.length) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      i++;
      break;
    }
    if (name === 'env' && (arg === '-S' || arg.startsWith('--split-string'))) {
      const value = arg === '-S' ? (args[i + 1] ?? '') : arg.slice(arg.indexOf('=') + 1);
      return [...value.split(/\s+/).filter((w) => w !== ''), ...args.slice(arg === '-S' ? i + 2 : i + 1)];
    }
    if (arg.startsWith('-') && arg !== '-') {
      i += spec.withValue.has(arg) ? 2 : 1;
      continue;
    }
    if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      i++;
      continue;
    }
    if (positionals > 0) {
      positionals--;
      i++;
      continue;
    }
    break;
  }
  return args.slice(i);
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

/** The script of `bash -c …` (any flags before `c`) or `eval …`; null for other programs. */
export function innerScript(name: string, args: readonly string[]): string | null {
  if (name === 'eval') return args.join(' ');
  if (!SHELLS.has(name)) return null;
  const flag = args.findIndex((a) => /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
  return flag === -1 ? null : (args[flag + 1] ?? null);
}

/** Every command in a script: parsed when the grammar is loaded, else split on shell operators. */
export function scriptCommands(script: string): string[][] {
  return commandWordsSync(script) ?? roughCommands(script);
}

function roughCommands(script: string): string[][] {
  return script
    .split(/[;&|()\n`]|\$\(/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .map((w) => w.replace(/^['"]|['"]$/g, ''))
        .filter((w) => w !== ''),
    )
    .filter((argv) => argv.length > 0);
}
