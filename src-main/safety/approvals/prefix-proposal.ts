// The prefix rule offered with an approval request ("always allow commands starting with …"), Codex's
// `proposedExecpolicyAmendment`. Prefixes that would allow arbitrary code are never offered.
import { basename } from 'node:path';
import { isKnownSafeCommand } from './known-safe';
import type { RuleMatcher } from './rules';

/** Programs whose bare prefix, or prefix followed by an option, runs arbitrary code. */
const BROAD_PROGRAMS = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'fish',
  'ksh',
  'python',
  'python2',
  'python3',
  'node',
  'nodejs',
  'deno',
  'bun',
  'ruby',
  'perl',
  'php',
  'lua',
  'env',
  'sudo',
  'doas',
  'su',
  'xargs',
  'eval',
  'exec',
  'command',
  'nohup',
  'timeout',
  'time',
  'nice',
  'setsid',
  'stdbuf',
  'npx',
  'pnpx',
  'bunx',
  'uvx',
]);

/** Whether remembering `prefix` as an allow rule would be too broad to offer. */
export function isTooBroadPrefix(prefix: readonly string[]): boolean {
  const [first, second] = prefix;
  if (first === undefined || prefix.some((word) => word === '')) return true;
  if (!BROAD_PROGRAMS.has(basename(first))) return false;
  return second === undefined || second.startsWith('-');
}

function isPrefixOf(prefix: readonly string[], argv: readonly string[]): boolean {
  return prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word);
}

/**
 * The prefix to offer for a plain script (`argvs`), or null. The model's own `prefix_rule` is used when
 * it is not too broad and is a prefix of a command of the script that needs approval; otherwise the
 * whole argv of the single command that needs approval, if there is exactly one.
 */
export function proposePrefix(
  argvs: readonly (readonly string[])[] | null,
  rules: RuleMatcher,
  modelPrefix?: readonly string[],
): string[] | null {
  if (argvs === null) return null;
  const needing = argvs.filter((argv) => !isKnownSafeCommand(argv) && rules.match(argv)?.decision !== 'allow');
  if (
    modelPrefix !== undefined &&
    !isTooBroadPrefix(modelPrefix) &&
    needing.some((argv) => isPrefixOf(modelPrefix, argv))
  ) {
    return [...modelPrefix];
  }
  const only = needing.length === 1 ? needing[0] : undefined;
  return only === undefined || isTooBroadPrefix(only) ? null : [...only];
}
