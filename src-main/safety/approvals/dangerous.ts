// Dangerous commands: destructive or privilege-raising commands that always need the user's approval
// (unless the approval policy is `never` with full access). The program is recognised by basename, so a
// `/usr/bin/rm` or `./rm` counts too, and through prefixes such as `env`, `nice`, `timeout`, `xargs`.
//
// Judgement calls: `git checkout -- <paths>` / `git checkout .` / `git checkout -f` and `git restore`
// on the worktree discard uncommitted work irreversibly, so they are dangerous like `git reset --hard`;
// switching branches is not. Recursive chmod/chown/chgrp is dangerous whatever the target.
import { basename } from 'node:path';
import { innerScript, scriptCommands, unwrapPrefix } from './command-unwrap';
import { commandWords } from './shell-parse';

/** Whether `argv` (or any command inside it, for shell wrappers) is dangerous. */
export function isDangerousCommand(argv: readonly string[]): boolean {
  return dangerReason(argv) !== null;
}

/** Whether any command anywhere in `script` (including substitutions and subshells) is dangerous. */
export async function isDangerousScript(script: string): Promise<boolean> {
  return (await commandWords(script)).some((argv) => isDangerousCommand(argv));
}

/** Why a script is dangerous, checking every command found in it; null when none is. */
export function scriptDangerReason(script: string): string | null {
  for (const argv of scriptCommands(script)) {
    const reason = dangerReason(argv);
    if (reason !== null) return reason;
  }
  return null;
}

/** A short explanation of why `argv` is dangerous, or null when it is not. */
export function dangerReason(argv: readonly string[], depth = 0): string | null {
  if (depth > 4) return null;
  const [program, ...args] = argv;
  if (program === undefined) return null;
  const name = basename(program);
  const unwrapped = unwrapPrefix(name, args);
  if (unwrapped !== null) return unwrapped.length > 0 ? dangerReason(unwrapped, depth + 1) : null;
  const script = innerScript(name, args);
  if (script !== null) {
    for (const inner of scriptCommands(script)) {
      const reason = dangerReason(inner, depth + 1);
      if (reason !== null) return reason;
    }
    return null;
  }
  return directReason(name, args, depth);
}

const PRIVILEGE = new Set(['sudo', 'doas', 'su', 'pkexec', 'run0']);
const DISK_TOOLS = new Set(['mkswap', 'wipefs', 'shred', 'fdisk', 'sfdisk', 'parted', 'mke2fs']);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);

function directReason(name: string, args: readonly string[], depth: number): string | null {
  if (PRIVILEGE.has(name)) return `\`${name}\` runs a command with elevated privileges`;
  if (name === 'rm' && rmIsForcedOrRecursive(args))
    return '`rm` with -r/-f deletes files recursively or without asking';
  if (name === 'mkfs' || name.startsWith('mkfs.') || DISK_TOOLS.has(name))
    return `\`${name}\` destroys data on a disk or file`;
  if (name === 'dd' && args.some((a) => a.startsWith('of='))) return '`dd of=…` overwrites its output file or device';
  if (POWER.has(name)) return `\`${name}\` stops the machine`;
  if ((name === 'chmod' || name === 'chown' || name === 'chgrp') && hasFlag(args, 'R', '--recursive')) {
    return `recursive \`${name}\` changes permissions of a whole tree`;
  }
  if (name === 'find') return findReason(args, depth);
  if (name === 'git') return gitReason(args);
  return null;
}

/** Whether a short-option cluster (before `--`) contains `letter`, or the long option is present. */
function hasFlag(args: readonly string[], letters: string, long: string): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === long) return true;
    if (/^-[A-Za-z]+$/.test(arg) && [...letters].some((l) => arg.includes(l))) return true;
  }
  return false;
}

function rmIsForcedOrRecursive(args: readonly string[]): boolean {
  return hasFlag(args, 'rRf', '--recursive') || hasFlag(args, '', '--force');
}

function findReason(args: readonly string[], depth: number): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-delete') return '`find -delete` deletes every file it matches';
    if (arg === '-exec' || arg === '-execdir' || arg === '-ok' || arg === '-okdir') {
      const end = args.findIndex((a, j) => j > i && (a === ';' || a === '+'));
      const inner = args.slice(i + 1, end === -1 ? undefined : end);
      const reason = dangerReason(inner, depth + 1);
      if (reason !== null) return reason;
    }
  }
  return null;
}

const GIT_GLOBALS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--config-env',
  '--git-dir',
  '--namespace',
  '--super-prefix',
  '--work-tree',
]);

function gitReason(args: readonly string[]): string | null {
  let i = 0;
  while (i < args.length && (args[i] ?? '').startsWith('-')) i += GIT_GLOBALS_WITH_VALUE.has(args[i] ?? '') ? 2 : 1;
  const sub = args[i];
  const rest = args.slice(i + 1);
  switch (sub) {
    case 'reset':
      return rest.includes('--hard') ? '`git reset --hard` discards uncommitted changes' : null;
    case 'push':
      return gitPushIsDestructive(rest) ? '`git push` with force or delete rewrites or removes remote history' : null;
    case 'clean':
      return hasFlag(rest, 'f', '--force') ? '`git clean -f` deletes untracked files' : null;
    case 'checkout':
      return rest.includes('--') || rest.includes('.') || hasFlag(rest, 'f', '--force')
        ? '`git checkout` of paths discards uncommitted changes'
        : null;
    case 'restore': {
      const staged = rest.includes('--staged') || rest.includes('-S');
      const worktree = rest.includes('--worktree') || rest.includes('-W');
      return !staged || worktree ? '`git restore` discards uncommitted changes in the working tree' : null;
    }
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? '`git stash drop/clear` deletes stashed work' : null;
    case 'branch':
      return rest.includes('-D') || (hasFlag(rest, 'd', '--delete') && hasFlag(rest, 'f', '--force'))
        ? '`git branch -D` deletes a branch even if it is not merged'
        : null;
    default:
      return null;
  }
}

function gitPushIsDestructive(args: readonly string[]): boolean {
  let positionals = 0;
  for (const arg of args) {
    if (arg === '--force' || arg === '--mirror' || arg === '--delete' || arg === '--prune') return true;
    if (arg.startsWith('--force-with-lease') || arg.startsWith('--force-if-includes')) return true;
    if (/^-[A-Za-z]+$/.test(arg) && (arg.includes('f') || arg.includes('d'))) return true;
    if (!arg.startsWith('-')) {
      positionals++;
      if (positionals > 1 && (arg.startsWith('+') || arg.startsWith(':'))) return true;
    }
  }
  return false;
}
