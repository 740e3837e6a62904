/**
 * What one hook run decided, from its exit and output, as Codex 0.169 reads them: exit 0 goes on (a JSON
 * object on stdout may still block: `"decision": "block"` with `reason`, `"continue": false` with
 * `stopReason`, or `hookSpecificOutput.permissionDecision: "deny"` with `permissionDecisionReason`; and
 * may add `additionalContext`; a Stop hook's `continue: false` is a `stopped` run, and some Stop outputs are
 * failures, see `invalidStopOutput`); exit 2 blocks with stderr as the reason; any other exit, a timeout or a
 * hook that cannot start is a failure that is shown, never a block. An `mcp_tool` hook's answer arrives in
 * the same form (core/hooks/run-mcp-tool.ts): its text as stdout, an `isError` result or a failed call as
 * `toolError` (the whole message).
 */
import type { HookOutputEntry, HookRunStatus } from '../../../src-preload/protocol';
import type { HookEvent } from '../../config/hooks/schema';
import type { HookProcessResult } from './run-command';

export interface HookDecision {
  status: Exclude<HookRunStatus, 'running'>;
  entries: HookOutputEntry[];
  /** The reason of a block; null when the run did not block. */
  blockReason: string | null;
  /** Context the hook asks to give the model. */
  context: string | null;
  /** The hook said `"continue": false` (a Stop hook's way to end the turn whatever other hooks decide). */
  stopped: boolean;
}

export function decide(result: HookProcessResult, timeoutSec: number, event?: HookEvent): HookDecision {
  if (event === 'Stop') {
    const invalid = invalidStopOutput(result);
    if (invalid !== null) return failed(invalid);
  }
  if (result.spawnError !== null) return failed(`hook could not start: ${result.spawnError}`);
  if (result.toolError != null) return failed(result.toolError);
  if (result.timedOut) return failed(`hook timed out after ${timeoutSec}s`);
  if (result.exitCode === 2) {
    const reason = result.stderr.trim() || 'the hook exited with code 2 and gave no reason';
    return {
      status: 'blocked',
      entries: [{ kind: 'feedback', text: reason }],
      blockReason: reason,
      context: null,
      stopped: false,
    };
  }
  if (result.exitCode !== 0) return failed(`hook exited with code ${result.exitCode ?? 'unknown'}`);
  const json = stdoutObject(result.stdout);
  if (json === null) return { status: 'completed', entries: [], blockReason: null, context: null, stopped: false };
  const specific = record(json['hookSpecificOutput']);
  const context = text(specific?.['additionalContext']) ?? text(json['additionalContext']);
  const contextEntries: HookOutputEntry[] = context === null ? [] : [{ kind: 'context', text: context }];
  const block =
    json['decision'] === 'block'
      ? (text(json['reason']) ?? 'blocked by the hook')
      : specific?.['permissionDecision'] === 'deny'
        ? (text(specific['permissionDecisionReason']) ?? 'denied by the hook')
        : json['continue'] === false
          ? (text(json['stopReason']) ?? 'stopped by the hook')
          : null;
  if (event === 'Stop' && json['continue'] === false)
    // Codex's run of a Stop hook that ends the turn: `stopped`, its reason a `stop` entry.
    return {
      status: 'stopped',
      entries: [{ kind: 'stop', text: block ?? 'stopped by the hook' }],
      blockReason: block,
      context: null,
      stopped: true,
    };
  if (block !== null)
    return {
      status: 'blocked',
      entries: [{ kind: 'feedback', text: block }, ...contextEntries],
      blockReason: block,
      context,
      stopped: json['continue'] === false,
    };
  return { status: 'completed', entries: contextEntries, blockReason: null, context, stopped: false };
}

/**
 * What Codex 0.169 counts as a failed Stop hook run rather than a block or a pass
 * (test/fixtures/codex-hooks-0.169/stop-outcomes.json): exit 2 with nothing on stderr, stdout that is not
 * a JSON object, a `decision` other than `block`, `hookSpecificOutput` (Stop has none), and a block without
 * a reason. Null: the output is one Stop may give.
 */
function invalidStopOutput(result: HookProcessResult): string | null {
  if (result.spawnError !== null || result.timedOut || result.toolError != null) return null;
  if (result.exitCode === 2 && result.stderr.trim() === '')
    return 'Stop hook exited with code 2 but did not write a continuation prompt to stderr';
  if (result.exitCode !== 0 || result.stdout.trim() === '') return null;
  const json = stdoutObject(result.stdout);
  const INVALID = 'hook returned invalid stop hook JSON output';
  if (json === null) return INVALID;
  if ((json['decision'] !== undefined && json['decision'] !== 'block') || json['hookSpecificOutput'] !== undefined)
    return INVALID;
  if (json['decision'] === 'block' && text(json['reason']) === null)
    return 'Stop hook returned decision:block without a non-empty reason';
  return null;
}

function failed(message: string): HookDecision {
  return {
    status: 'failed',
    entries: [{ kind: 'error', text: message }],
    blockReason: null,
    context: null,
    stopped: false,
  };
}

function stdoutObject(stdout: string): Record<string, unknown> | null {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    return record(JSON.parse(trimmed));
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown): Record<string, unknown> | null {
  return isRecord(value) ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}
