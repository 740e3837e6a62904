import { loadConfig } from '../../config';
import { sandboxPolicyFor } from '../../core/create-session';
import { CommandExecError, CommandExecSessions } from '../../terminal/command-exec';
import { FileSearch } from '../../terminal/file-search';
import type { KeptTerminals } from '../../terminal/kept-terminals';
import { USER_SHELL_TIMEOUT_MS } from '../../terminal/user-shell';
import type { Client, HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';

type TerminalHandlers = Pick<
  HandlerTable,
  | 'command/exec'
  | 'command/exec/write'
  | 'command/exec/resize'
  | 'command/exec/terminate'
  | 'weft/terminal/adopt'
  | 'weft/terminal/release'
  | 'thread/shellCommand'
  | 'fuzzyFileSearch'
>;

/**
 * `command/exec*` (per connection; `kept` holds the processes of connections that dropped, for
 * `weft/terminal/adopt`), `thread/shellCommand` and `fuzzyFileSearch`.
 */
export function terminalHandlers(ctx: HandlerContext, kept: KeptTerminals): TerminalHandlers {
  const { environment, manager } = ctx;
  const sessions = new Map<Client, CommandExecSessions>();
  const fileSearch = new FileSearch();
  const sessionsOf = (client: Client): CommandExecSessions => {
    let s = sessions.get(client);
    if (!s) {
      const created = new CommandExecSessions(
        {
          defaultCwd: environment.defaultCwd,
          env: environment.env,
          defaultSandbox: async (cwd) => {
            const { config } = await loadConfig({ weftHome: environment.weftHome, cwd, env: environment.env });
            return sandboxPolicyFor(config.sandbox_mode ?? 'workspace-write', config);
          },
          kept,
        },
        (n) => client.notify(n),
      );
      s = created;
      sessions.set(client, created);
      client.resources.add(created, 'its terminal processes');
      client.onClose(() => sessions.delete(client));
    }
    return s;
  };
  const guard = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof CommandExecError)
        throw error.kind === 'params' ? invalidParams(error.message) : invalidRequest(error.message);
      throw error;
    }
  };
  return {
    'command/exec': (params, client) => guard(() => sessionsOf(client).exec(params)),
    'command/exec/write': (params, client) =>
      guard(async () => {
        await sessionsOf(client).write(
          params.processId,
          params.deltaBase64 ? Buffer.from(params.deltaBase64, 'base64') : null,
          params.closeStdin === true,
        );
        return {};
      }),
    'command/exec/resize': (params, client) =>
      guard(async () => {
        await sessionsOf(client).resize(params.processId, params.size);
        return {};
      }),
    'command/exec/terminate': (params, client) =>
      guard(async () => {
        await sessionsOf(client).terminate(params.processId);
        return {};
      }),
    'weft/terminal/adopt': (params, client) =>
      guard(() => {
        const process = kept.take(params.key, params.processId);
        if (process === null)
          throw invalidRequest(
            `processId: no process ${params.processId} is kept under this key: it ended, was not taken over within the grace period (WEFT_TERMINAL_GRACE_MS), or this server restarted since`,
          );
        return sessionsOf(client).adopt(params.processId, process);
      }),
    'weft/terminal/release': (params, client) => {
      sessionsOf(client).release(params.key);
      return Promise.resolve({});
    },
    'thread/shellCommand': async (params, client) => {
      const entry = manager.get(params.threadId);
      if (!entry) throw invalidParams(`thread ${params.threadId} is not loaded; call thread/resume first`);
      if (params.command.trim() === '') throw invalidParams('command: give the command to run');
      manager.subscribe(params.threadId, client);
      try {
        await entry.session.shellCommand(params.command, params.timeoutMs ?? USER_SHELL_TIMEOUT_MS);
      } catch (error) {
        throw invalidRequest(error instanceof Error ? error.message : String(error));
      }
      return {};
    },
    fuzzyFileSearch: async (params) => {
      const roots = params.roots.length > 0 ? params.roots : [environment.defaultCwd];
      return { files: await fileSearch.search(params.query, roots, params.cancellationToken) };
    },
  };
}
