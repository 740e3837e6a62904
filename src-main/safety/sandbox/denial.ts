// Whether a failed command was probably stopped by the sandbox (which drives the on-failure
// "retry without the sandbox?" flow). Heuristic, like Codex's: exit status plus what the output says.

export interface DenialInput {
  /** Whether the command ran inside the platform sandbox. */
  sandboxed: boolean;
  /** null when the process was killed by a signal or never ran. */
  exitCode: number | null;
  /** stdout and stderr as the command printed them. */
  output: string;
  /** The sandbox had network off: network errors then count as denials too. Default false. */
  networkDisabled?: boolean;
}

const DENIAL_MARKERS = [
  'operation not permitted',
  'permission denied',
  'read-only file system',
  'seccomp',
  'sandbox',
  'landlock',
  'failed to write file',
  'bwrap:',
];

const NETWORK_MARKERS = [
  'network is unreachable',
  'could not resolve host',
  'temporary failure in name resolution',
  'name or service not known',
  'getaddrinfo enotfound',
  'getaddrinfo eai_again',
];

/** Exit statuses that mean "usage error", "not executable", "not found": never a sandbox denial. */
const NOT_DENIED_EXIT_CODES = new Set([2, 126, 127]);
const SIGSYS = 31;

export function isLikelySandboxDenied(input: DenialInput): boolean {
  if (!input.sandboxed || input.exitCode === 0) return false;
  const text = input.output.toLowerCase();
  if (DENIAL_MARKERS.some((marker) => text.includes(marker))) return true;
  if (input.networkDisabled === true && NETWORK_MARKERS.some((marker) => text.includes(marker))) return true;
  if (input.exitCode !== null && NOT_DENIED_EXIT_CODES.has(input.exitCode)) return false;
  return input.exitCode === 128 + SIGSYS;
}
