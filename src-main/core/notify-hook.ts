// Codex's `notify` program hook: `notify = ["program", "arg", …]` in config.toml runs the program when an
// agent turn has completed, with one more argument, a JSON object in Codex 0.169's form (kebab-case keys,
// in this order; test/fixtures/codex-notify-0.169 holds what Codex itself passes):
//   {"type":"agent-turn-complete","thread-id","turn-id","cwd","client","input-messages":[…],
//    "last-assistant-message"}
// As in Codex, only a turn that completed calls it (not a failed or stopped one), the program inherits the
// environment Weft runs in and nothing else, and it is never waited for: it runs beside the thread, and
// a program that cannot start or exits with an error is logged, never a failure of the turn.
import { spawn } from 'node:child_process';
import type { ServerNotification, Turn } from '../../src-preload/protocol';
import { errorMessage } from '../util/errors';

/** The JSON Codex passes to the program (its keys, in its order). */
export interface AgentTurnCompletePayload {
  type: 'agent-turn-complete';
  'thread-id': string;
  'turn-id': string;
  cwd: string;
  /** The client that started the turn (`clientInfo.name` for the app server; `weft_exec` for `weft exec`). */
  client?: string;
  'input-messages': string[];
  'last-assistant-message': string | null;
}

/** `client` for turns run by `weft exec` (Codex's exec says `codex_exec`). */
export const EXEC_CLIENT_NAME = 'weft_exec';

/**
 * The payload for a turn that ended, or null when it calls no program: only a completed turn of the agent
 * (one the user's words started; not a compaction, a `!command` or a worktree's setup script).
 */
export function agentTurnCompletePayload(
  threadId: string,
  turn: Turn,
  cwd: string,
  client: string | null,
): AgentTurnCompletePayload | null {
  if (turn.status !== 'completed') return null;
  const inputs: string[] = [];
  let last: string | null = null;
  for (const item of turn.items) {
    if (item.type === 'userMessage') for (const part of item.content) if (part.type === 'text') inputs.push(part.text);
    if (item.type === 'agentMessage') last = item.text;
  }
  if (!turn.items.some((item) => item.type === 'userMessage')) return null;
  return {
    type: 'agent-turn-complete',
    'thread-id': threadId,
    'turn-id': turn.id,
    cwd,
    // Codex leaves `client` out when it has none.
    ...(client === null ? {} : { client }),
    'input-messages': inputs,
    'last-assistant-message': last,
  };
}

export interface NotifyHookOptions {
  /** `notify` from the config: the program and its first arguments. */
  argv: readonly string[];
  threadId: string;
  /** The turn's working directory, when it ends. */
  cwd: () => string;
  /** The client that started the latest turn (see `AgentTurnCompletePayload.client`). */
  client: () => string | null;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/**
 * A listener of a session's notifications that runs the program at each completed agent turn. `settled`
 * resolves once every program started so far has started or failed to (so a `weft exec` that exits right
 * after the turn still logs a program that could not start); it never waits for a program to end.
 */
export function notifyHook(options: NotifyHookOptions): {
  listener: (n: ServerNotification) => void;
  settled: () => Promise<void>;
} {
  const starting = new Set<Promise<void>>();
  const [program, ...args] = options.argv;
  const listener = (n: ServerNotification): void => {
    if (program === undefined || n.method !== 'turn/completed') return;
    const payload = agentTurnCompletePayload(options.threadId, n.params.turn, options.cwd(), options.client());
    if (payload === null) return;
    const started = run(program, [...args, JSON.stringify(payload)], options);
    starting.add(started);
    void started.then(() => starting.delete(started));
  };
  return { listener, settled: async () => void (await Promise.all([...starting])) };
}

/** Starts the program; resolves once it has started (or could not). Its exit is only logged when it fails. */
function run(program: string, args: string[], options: NotifyHookOptions): Promise<void> {
  const what = `the notify program ${JSON.stringify(program)}`;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, args, { env: options.env, stdio: 'ignore' });
    } catch (error) {
      options.log(`weft: warning: ${what} could not start: ${errorMessage(error)}`);
      resolve();
      return;
    }
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
    child.once('error', (error) => {
      options.log(`weft: warning: ${what} could not start: ${error.message} (check \`notify\` in config.toml)`);
      resolve();
    });
    child.once('exit', (code, signal) => {
      if (code !== 0 && code !== null) options.log(`weft: warning: ${what} exited with code ${code}`);
      else if (signal !== null) options.log(`weft: warning: ${what} was ended by ${signal}`);
    });
  });
}
