/**
 * What identifies a hook, as Codex 0.169 computes it (checked against Codex's own `hooks/list`, kept in
 * test/fixtures/codex-hooks-0.169/trust.json), so trust recorded by one is read by the other:
 * - the key: `<source file>:<event_snake>:<group index>:<handler index>`;
 * - the hash: `sha256:` + SHA-256 of the compact JSON, keys sorted, of
 *   `{event_name, hooks: [{async, command, timeout, type}], matcher?}` (the timeout filled in with the default).
 * An `mcp_tool` hook hashes `{async, input, server, timeout, tool, type: "mcp_tool"}` in the same frame (Weft's
 * own: Codex 0.169's hash of such a hook was not observed), so changing its server, tool or input needs new trust.
 */
import { createHash } from 'node:crypto';
import { snakeEventName, type HookAction, type HookEvent } from './schema';

export function hookKey(sourcePath: string, event: HookEvent, group: number, handler: number): string {
  return `${sourcePath}:${snakeEventName(event)}:${group}:${handler}`;
}

export interface HashedHook {
  event: HookEvent;
  matcher: string | null;
  action: HookAction;
  timeoutSec: number;
  async: boolean;
  statusMessage: string | null;
}

export function hookHash(hook: HashedHook): string {
  const { action } = hook;
  const handler: Record<string, unknown> =
    action.type === 'command'
      ? { async: hook.async, command: action.command, timeout: hook.timeoutSec, type: 'command' }
      : {
          async: hook.async,
          input: action.input,
          server: action.server,
          timeout: hook.timeoutSec,
          tool: action.tool,
          type: 'mcp_tool',
        };
  if (hook.statusMessage !== null) handler['statusMessage'] = hook.statusMessage;
  const identity: Record<string, unknown> = { event_name: snakeEventName(hook.event), hooks: [handler] };
  if (hook.matcher !== null) identity['matcher'] = hook.matcher;
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** JSON with object keys sorted at every level and no spaces. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
