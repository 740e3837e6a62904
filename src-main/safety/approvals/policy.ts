// Whether a command or patch runs, asks the user first, or is refused: Codex's decision table
// (approval policy × sandbox policy × known-safe / dangerous), plus remembered rules, session approvals
// and Weft's rule that nothing silently runs unsandboxed when the OS sandbox is unavailable.
//
// Commands, in order:
// 1. A `forbidden` rule matching any command of the script (also inside substitutions, nested shells
//    and prefixes such as `env`/`timeout`): forbidden. `prompt` rules are looked for the same way.
// 2. Approved for the session (same script and cwd): run.
// 3. A `prompt` rule: ask (forbidden under `never`).
// 4. A dangerous command: ask; under `never` run only with danger-full-access, else forbidden. Allow
//    rules do not cover dangerous commands (an allowed `git push` prefix must not allow `--force`).
// 5. A plain script whose every command is allowed by a rule or known-safe (at least one by a rule):
//    run; the rule is a standing approval, so it also runs when the sandbox is unavailable.
// 6. Known-safe plain script: run sandboxed. "Known-safe" means read-only inside the sandbox: a command
//    that asks to leave it (`require_escalated`) is never known-safe, and when no sandbox is available
//    only commands that no workspace file can steer run unasked (git, whose config may name programs,
//    asks).
// 7. Anything else: danger-full-access runs it (asks under `untrusted`); an escalation request under
//    `never` is forbidden, with the reason; `untrusted` asks; `on-request` with an escalation request
//    asks to run unsandboxed; otherwise it runs sandboxed, and when no sandbox is available it asks
//    (forbidden under `never`, with the reason).
import type { AskForApproval, SandboxPolicy } from '../../../src-preload/protocol';
import { isPathWritable, writableRootsFor } from '../sandbox/writable-roots';
import { expandCommand } from './command-unwrap';
import { scriptDangerReason } from './dangerous';
import { isKnownSafeCommand } from './known-safe';
import { proposePrefix } from './prefix-proposal';
import type { Rule, RuleMatcher } from './rules';
import { commandWordsSync } from './shell-parse';

export type SandboxChoice = 'platform' | 'none';

export interface CommandAssessmentInput {
  /** The command string as the model sent it. */
  script: string;
  /** `parseShellScript(script)`: the commands of a plain script, or null. */
  argvs: string[][] | null;
  approvalPolicy: AskForApproval;
  sandboxPolicy: SandboxPolicy;
  /** The model asked to run outside the sandbox (`sandbox_permissions: "require_escalated"`). */
  escalationRequested: boolean;
  /** The model's `justification` for an escalation, shown as the reason. */
  justification?: string;
  /** The model's suggested `prefix_rule`. */
  prefixRule?: string[];
  /** Whether the platform sandbox can run (see createSandboxLauncher). */
  sandboxAvailable: boolean;
  /** Why it cannot, and what to do, for the messages; used only when `sandboxAvailable` is false. */
  sandboxUnavailableReason?: string;
  rules: RuleMatcher;
  /** The user chose "accept for session" for this script in this cwd (see SessionApprovals). */
  sessionApproved: boolean;
}

export type CommandAssessment =
  | { kind: 'run'; sandbox: SandboxChoice }
  | { kind: 'ask'; reason: string; proposedPrefix: string[] | null; sandboxIfApproved: SandboxChoice }
  | { kind: 'forbidden'; reason: string };

export function assessCommand(input: CommandAssessmentInput): CommandAssessment {
  const { argvs, approvalPolicy, sandboxPolicy, escalationRequested, sandboxAvailable, rules } = input;
  const restricted = sandboxPolicy.type !== 'dangerFullAccess';
  /** The sandbox for a command the user approved (or a rule approves): none when escalated or absent. */
  const approvedSandbox: SandboxChoice = restricted && !escalationRequested && sandboxAvailable ? 'platform' : 'none';
  const allCommands = (commandWordsSync(input.script) ?? argvs ?? []).flatMap((argv) => expandCommand(argv));
  const ruleHits = allCommands.map((argv) => rules.match(argv)).filter((rule): rule is Rule => rule !== null);

  const forbidden = ruleHits.find((rule) => rule.decision === 'forbidden');
  if (forbidden !== undefined) return { kind: 'forbidden', reason: ruleReason(forbidden, 'is forbidden') };
  if (input.sessionApproved) return { kind: 'run', sandbox: approvedSandbox };

  const unsandboxedNote =
    restricted && !sandboxAvailable && !escalationRequested
      ? '; the sandbox is unavailable, so it would run unsandboxed'
      : '';
  const ask = (reason: string, proposedPrefix: string[] | null = null): CommandAssessment =>
    approvalPolicy === 'never'
      ? { kind: 'forbidden', reason: `${reason}; it needs approval, but approvals are set to "Never ask"` }
      : { kind: 'ask', reason: `${reason}${unsandboxedNote}`, proposedPrefix, sandboxIfApproved: approvedSandbox };
  const proposal = (): string[] | null => proposePrefix(argvs, rules, input.prefixRule);

  const prompt = ruleHits.find((rule) => rule.decision === 'prompt');
  if (prompt !== undefined) return ask(ruleReason(prompt, 'requires approval'));

  const danger = scriptDangerReason(input.script);
  if (danger !== null) {
    if (approvalPolicy === 'never' && !restricted) return { kind: 'run', sandbox: 'none' };
    return ask(`dangerous command: ${danger}`);
  }

  if (argvs !== null) {
    const safe = (argv: string[]): boolean => skipsQuestion(argv, restricted, escalationRequested, sandboxAvailable);
    const allowed = argvs.map((argv) => rules.match(argv)?.decision === 'allow');
    if (allowed.some(Boolean) && argvs.every((argv, i) => allowed[i] === true || safe(argv))) {
      return { kind: 'run', sandbox: approvedSandbox };
    }
    if (argvs.every(safe)) return { kind: 'run', sandbox: approvedSandbox };
  }

  if (!restricted) {
    return approvalPolicy === 'untrusted' ? ask(UNTRUSTED_REASON, proposal()) : { kind: 'run', sandbox: 'none' };
  }
  if (escalationRequested && approvalPolicy === 'never') {
    return {
      kind: 'forbidden',
      reason:
        'the command asks to run outside the sandbox (sandbox_permissions: require_escalated), which needs approval, but approvals are set to "Never ask"; run it inside the sandbox instead (leave out sandbox_permissions)',
    };
  }
  if (approvalPolicy === 'untrusted') return ask(UNTRUSTED_REASON, proposal());
  if (approvalPolicy === 'on-request' && escalationRequested) {
    const why = input.justification?.trim();
    return ask(why !== undefined && why !== '' ? why : 'the command asks to run outside the sandbox', proposal());
  }
  if (sandboxAvailable) return { kind: 'run', sandbox: 'platform' };
  const unavailable = `the sandbox is unavailable${input.sandboxUnavailableReason === undefined ? '' : ` (${input.sandboxUnavailableReason})`}`;
  if (approvalPolicy === 'never') {
    return {
      kind: 'forbidden',
      reason: `${unavailable}, so this command could only run unsandboxed, which needs approval, but approvals are set to "Never ask". Fix the sandbox (see \`weft doctor\`), or choose an approval policy that asks.`,
    };
  }
  return {
    kind: 'ask',
    reason: `${unavailable}; approve to run this command without a sandbox`,
    proposedPrefix: proposal(),
    sandboxIfApproved: 'none',
  };
}

/**
 * Whether a known-safe command may run without the question. Known-safe means "read-only inside the
 * sandbox": asking to leave the sandbox is never known-safe, and with no sandbox at all only commands no
 * file in the workspace can steer count (not git, see KnownSafeWhere). With full access there is no
 * sandbox to leave.
 */
function skipsQuestion(
  argv: string[],
  restricted: boolean,
  escalationRequested: boolean,
  sandboxAvailable: boolean,
): boolean {
  if (!restricted) return isKnownSafeCommand(argv);
  if (escalationRequested) return false;
  return isKnownSafeCommand(argv, sandboxAvailable ? 'sandboxed' : 'unsandboxed');
}

const UNTRUSTED_REASON =
  'approvals are set to "Ask unless read-only": only known read-only commands run without asking';

function ruleReason(rule: Rule, verb: string): string {
  const why = rule.justification === undefined ? '' : `: ${rule.justification}`;
  return `\`${rule.pattern.join(' ')}\` ${verb} by rule ${rule.id} (${rule.sourceFile}:${rule.line})${why}`;
}

export type RetryDecision = { kind: 'report' } | { kind: 'rerun' } | { kind: 'ask'; reason: string };

export const RETRY_WITHOUT_SANDBOX_REASON = 'command failed; retry without sandbox?';

/**
 * After the sandbox denied a command: `on-failure` and `untrusted` offer to rerun it unsandboxed (at
 * once if the user already approved that for the session); `on-request` and `never` report the
 * denial to the model.
 */
export function retryAfterDenial(
  approvalPolicy: AskForApproval,
  approvedUnsandboxedForSession: boolean,
): RetryDecision {
  if (approvalPolicy === 'on-request' || approvalPolicy === 'never') return { kind: 'report' };
  if (approvedUnsandboxedForSession) return { kind: 'rerun' };
  return { kind: 'ask', reason: RETRY_WITHOUT_SANDBOX_REASON };
}

export interface PatchAssessmentInput {
  /** Every path the patch writes, moves or deletes: absolute, already resolved against the cwd. */
  paths: string[];
  approvalPolicy: AskForApproval;
  sandboxPolicy: SandboxPolicy;
  cwd: string;
  /** The user approved these files (or their folder) for the session (see SessionApprovals). */
  sessionApproved: boolean;
  /** For `$TMPDIR`; default process.env. */
  env?: Record<string, string | undefined>;
  /** More read-only paths of the session (see `writableRootsFor`). */
  protectedPaths?: readonly string[];
}

export type PatchAssessment =
  /** `bySession`: applied because the person approved these files earlier in the session. */
  | { kind: 'apply'; bySession?: boolean }
  | { kind: 'ask'; reason: string; grantRoot: string | null }
  | { kind: 'forbidden'; reason: string };

export function assessPatch(input: PatchAssessmentInput): PatchAssessment {
  const { paths, approvalPolicy, sandboxPolicy } = input;
  if (paths.length === 0) return { kind: 'forbidden', reason: 'the patch changes no files' };
  if (input.sessionApproved) return { kind: 'apply', bySession: true };
  if (approvalPolicy === 'untrusted') {
    return {
      kind: 'ask',
      reason: 'approvals are set to "Ask unless read-only": every edit needs approval',
      grantRoot: null,
    };
  }
  if (sandboxPolicy.type === 'dangerFullAccess') return { kind: 'apply' };
  const roots = writableRootsFor(sandboxPolicy, input.cwd, input.env ?? process.env, input.protectedPaths);
  const outside = paths.filter((path) => !isPathWritable(path, roots));
  if (outside.length === 0) return { kind: 'apply' };
  const listed = outside.slice(0, 3).join(', ') + (outside.length > 3 ? ` and ${outside.length - 3} more` : '');
  const reason = `the patch writes outside the writable folders (or into a protected .git/.weft/.agents): ${listed}`;
  if (approvalPolicy === 'never') {
    return { kind: 'forbidden', reason: `${reason}; it needs approval, but approvals are set to "Never ask"` };
  }
  return {
    kind: 'ask',
    reason,
    grantRoot: grantRootFor(
      outside,
      roots.flatMap((r) => r.readOnlySubpaths),
    ),
  };
}

/** The closest common folder of `paths`, unless it is `/` or touches a protected path. */
function grantRootFor(paths: readonly string[], protectedPaths: readonly string[]): string | null {
  const parts = paths.map((path) => path.split('/').slice(0, -1));
  const first = parts[0] ?? [];
  let length = first.length;
  for (const p of parts) {
    let i = 0;
    while (i < length && p[i] === first[i]) i++;
    length = i;
  }
  const root = first.slice(0, length).join('/');
  if (root === '' || root === '/') return null;
  const touchesProtected = protectedPaths.some(
    (p) => p === root || p.startsWith(`${root}/`) || root.startsWith(`${p}/`),
  );
  return touchesProtected ? null : root;
}
