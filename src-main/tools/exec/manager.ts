// The engine behind `exec_command` and `write_stdin`: starts commands, keeps the ones still running
// after their yield time as numbered sessions, and returns their output in Codex's text format.
import { identityLauncher } from '../../safety/sandbox/launcher';
import { stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import { DEFAULT_MAX_SESSIONS, FIRST_SESSION_ID } from './constants';
import { commandEnv, DEFAULT_COMMAND_ENV_POLICY, type CommandEnvPolicy } from '../../safety/command-env';
import type { ExecProcess, SpawnOptions } from './exec-process';
import { formatExecOutput, newChunkId, truncateRetained } from './format';
import { execYieldMs, outputTokenBudget, writeStdinYieldMs } from './limits';
import { ExecSession, OutputChannel } from './session';
import type { WaitOutcome } from './session';
import { startPipeProcess } from './spawn-pipe';
import { startPtyProcess } from './spawn-pty';
import type { StoppedCommand } from '../../../src-preload/protocol';
import type { BackgroundSession, BackgroundSessions } from '../background-changes';
import type { Disposable } from '../../util/disposable';
import type {
  CommandLauncher,
  ExecContext,
  ExecRequest,
  ExecResult,
  LaunchedCommand,
  WriteStdinRequest,
} from './types';

export interface ExecSessionManagerOptions {
  /** Sessions kept at once (default 64); starting one more closes the least recently used. */
  maxSessions?: number;
  /** Wraps every command's argv (sandboxing). Default: run argv as is. */
  launcher?: CommandLauncher;
  /** Milliseconds clock for wall times and recency. Default: performance.now. */
  now?: () => number;
  /** Environment commands inherit before it is filtered. Default: process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** The filter (`shell_environment_policy`); default: everything but secret-looking variables. */
  envPolicy?: CommandEnvPolicy;
  /**
   * The commands are an agent's: each launcher is asked to run them below the host (`background`,
   * safety/sandbox/background.ts). Default: as they are.
   */
  background?: boolean;
}
const DEFAULT_SHELLS = new Set(['bash', 'zsh', 'sh']);

export class ExecSessionManager implements BackgroundSessions, Disposable {
  readonly maxSessions: number;
  private readonly launcher: CommandLauncher;
  private readonly now: () => number;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly envPolicy: CommandEnvPolicy;
  private readonly agentCommands: boolean;
  /** Sessions the model can address with write_stdin. */
  private readonly sessions = new Map<number, ExecSession>();
  /** Commands kept running after their first call, until a look after their end (see background-changes.ts). */
  private readonly background = new Set<ExecSession>();
  /** Commands inside their first exec call, not (yet) sessions. */
  private readonly starting = new Set<ExecSession>();
  private nextId = FIRST_SESSION_ID;
  /** Bumped by closeAll, so that commands still starting at that moment are closed too. */
  private epoch = 0;
  private lastCloseReason = '';

  constructor(opts: ExecSessionManagerOptions = {}) {
    this.maxSessions = Math.max(1, Math.floor(opts.maxSessions ?? DEFAULT_MAX_SESSIONS));
    this.launcher = opts.launcher ?? identityLauncher;
    this.now = opts.now ?? (() => performance.now());
    this.baseEnv = opts.baseEnv ?? process.env;
    this.envPolicy = opts.envPolicy ?? DEFAULT_COMMAND_ENV_POLICY;
    this.agentCommands = opts.background === true;
  }

  /**
   * Sessions the model can still address: running, or exited in the background with their exit not
   * yet reported by a write_stdin call.
   */
  get liveSessionCount(): number {
    return this.sessions.size;
  }

  backgroundSessions(): BackgroundSession[] {
    return [...this.background]
      .sort((a, b) => a.id - b.id)
      .flatMap((s) =>
        s.turnId === null
          ? []
          : [{ sessionId: s.id, turnId: s.turnId, command: s.command, exited: s.exitCode !== null }],
      );
  }

  forgetExited(sessionIds: readonly number[]): void {
    for (const session of [...this.background])
      if (session.exitCode !== null && sessionIds.includes(session.id)) this.background.delete(session);
  }

  async exec(req: ExecRequest, ctx: ExecContext): Promise<ExecResult> {
    const started = this.now();
    const epoch = this.epoch;
    if (ctx.signal.aborted) {
      return this.messageResult('The command was not started: the call was interrupted.', started, { aborted: true });
    }
    const workdirProblem = await checkWorkdir(req.workdir);
    if (workdirProblem !== null)
      return this.messageResult(`execution error: ${workdirProblem}`, started, { notStarted: workdirProblem });

    const env = commandEnv(this.baseEnv, this.envPolicy, req.env);
    const shell = req.shell ?? defaultShell(this.baseEnv['SHELL']);
    const output = new OutputChannel();
    output.sink = ctx.onOutput ?? null;
    let proc: ExecProcess;
    let launched: LaunchedCommand | undefined;
    try {
      launched = await (req.launcher ?? this.launcher)([shell, req.login === false ? '-c' : '-lc', req.cmd], {
        cwd: req.workdir,
        env,
        background: this.agentCommands,
      });
      const spawnOpts: SpawnOptions = {
        cwd: req.workdir,
        env: launched.env ?? env,
        onOutput: (text) => output.push(text),
      };
      const started = await (req.tty === true ? startPtyProcess : startPipeProcess)(launched.argv, spawnOpts);
      // The exit is reported once what the launch held (sandbox placeholders) has been given up.
      proc =
        launched.release === undefined ? started : { ...started, exited: started.exited.finally(launched.release) };
    } catch (err) {
      void launched?.release?.();
      const reason = err instanceof Error ? err.message : String(err);
      return this.messageResult(
        `execution error: ${reason}. Check the shell and the command, then try again.`,
        started,
        { notStarted: reason },
      );
    }
    const session = new ExecSession(this.nextId++, req.cmd, proc, output, this.now(), req.turnId ?? null);
    this.starting.add(session);
    ctx.onSpawn?.({ pid: proc.pid, sessionId: session.id });
    if (this.epoch !== epoch) {
      // closeAll ran while this command was starting: it must not outlive the sessions it closed.
      session.closeNote = closeAllNote(session, this.lastCloseReason);
      void session.terminate();
    }

    const outcome = await session.wait(execYieldMs(req.yieldTimeMs), ctx.signal);
    this.starting.delete(session);
    const notes: string[] = [];
    if (outcome === 'aborted') await session.terminate();
    else if (session.exitCode === null && session.closeNote === null) notes.push(...(await this.keep(session)));
    return this.finish(session, started, req.maxOutputTokens, outcome, notes);
  }

  async writeStdin(req: WriteStdinRequest, ctx: ExecContext): Promise<ExecResult> {
    const started = this.now();
    const session = this.sessions.get(req.sessionId);
    if (session === undefined) return this.unknownSession(req.sessionId, started);
    return session.exclusive(async () => {
      if (this.sessions.get(req.sessionId) !== session) return this.unknownSession(req.sessionId, started);
      const chars = req.chars ?? '';
      if (chars !== '' && session.exitCode === null && !session.process.write(chars)) {
        return this.messageResult(
          `The input was not sent: session ${session.id} was started with tty: false, so its stdin is closed. ` +
            'Call write_stdin with empty chars to read its output, or start the program again with ' +
            'exec_command and tty: true to interact with it.',
          started,
          { sessionId: session.id, pid: session.process.pid },
        );
      }
      session.lastUsed = this.now();
      session.activeCalls++;
      try {
        if (ctx.onOutput !== undefined) {
          const pending = session.output.peek();
          if (pending.head !== '' || pending.tail !== '') ctx.onOutput(pending.head + pending.tail);
        }
        session.output.sink = ctx.onOutput ?? null;
        const outcome = await session.wait(writeStdinYieldMs(chars, req.yieldTimeMs), ctx.signal);
        if (outcome === 'aborted') await session.terminate();
        return this.finish(session, started, req.maxOutputTokens, outcome, []);
      } finally {
        session.activeCalls--;
      }
    });
  }

  /**
   * Kills every command this manager started that is still running, and forgets all sessions. Resolves,
   * once they are gone, with the commands that were still running.
   */
  async closeAll(reason = 'all sessions were closed'): Promise<StoppedCommand[]> {
    this.epoch++;
    this.lastCloseReason = reason;
    const all = new Set<ExecSession>([...this.sessions.values(), ...this.starting]);
    this.sessions.clear();
    const kills: Promise<void>[] = [];
    const stopped: StoppedCommand[] = [];
    for (const session of all) {
      if (session.exitCode !== null) continue;
      session.closeNote = closeAllNote(session, reason);
      stopped.push({ sessionId: session.id, command: session.command });
      kills.push(session.terminate());
    }
    await Promise.all(kills);
    return stopped.sort((a, b) => a.sessionId - b.sessionId);
  }

  /** Kills every command still running: the thread that owns them was closed. */
  async dispose(): Promise<void> {
    await this.closeAll('the thread was closed');
  }

  /** Stores a still-running command as a session, closing the least recently used ones beyond the cap. */
  private async keep(session: ExecSession): Promise<string[]> {
    const notes: string[] = [];
    const victims: ExecSession[] = [];
    while (this.sessions.size >= this.maxSessions) {
      const victim = pickVictim([...this.sessions.values()]);
      if (victim === undefined) break;
      this.sessions.delete(victim.id);
      victims.push(victim);
      const why = `to stay within ${this.maxSessions} live sessions`;
      const note =
        victim.exitCode === null
          ? `Note: closed session ${victim.id} (\`${shorten(victim.command)}\`), the least recently used, ${why}; its processes were stopped.`
          : `Note: dropped session ${victim.id} (\`${shorten(victim.command)}\`), which had exited with code ${victim.exitCode}, ${why}; its unread output was discarded.`;
      victim.closeNote = note;
      notes.push(note);
    }
    this.sessions.set(session.id, session);
    if (session.turnId !== null) this.background.add(session);
    await Promise.all(victims.map((victim) => victim.terminate()));
    return notes;
  }

  private finish(
    session: ExecSession,
    started: number,
    maxOutputTokens: number | undefined,
    outcome: WaitOutcome,
    notes: string[],
  ): ExecResult {
    const parts = session.output.drain();
    session.output.sink = null;
    const exitCode = session.exitCode;
    const aborted = outcome === 'aborted';
    const running = exitCode === null && !aborted && this.sessions.get(session.id) === session;
    if (!running && this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    if (session.closeNote !== null && !notes.includes(session.closeNote)) notes.push(session.closeNote);
    const truncation = truncateRetained(parts, outputTokenBudget(maxOutputTokens));
    const originalTokenCount = truncation.truncated ? truncation.originalTokenCount : null;
    const sessionId = running ? session.id : null;
    const wallTimeMs = this.now() - started;
    const body = notes.length > 0 ? `${notes.join('\n')}\n${truncation.text}` : truncation.text;
    return {
      text: formatExecOutput({ chunkId: newChunkId(), wallTimeMs, exitCode, sessionId, originalTokenCount, body }),
      exitCode,
      sessionId,
      output: parts.head + parts.tail,
      wallTimeMs,
      truncated: truncation.truncated,
      originalTokenCount,
      aborted,
      pid: session.process.pid,
      ...(session.turnId === null ? {} : { turnId: session.turnId }),
    };
  }

  private unknownSession(id: number, started: number): ExecResult {
    return this.messageResult(
      `Unknown session ID ${id}; it may have exited. Only a session reported as "Process running with ` +
        'session ID N" accepts write_stdin; run the command again with exec_command if you still need it.',
      started,
    );
  }

  /** A result for a call that ran nothing: `text` is the whole message for the model. */
  private messageResult(
    text: string,
    started: number,
    extra: { aborted?: boolean; sessionId?: number; pid?: number; notStarted?: string } = {},
  ): ExecResult {
    return {
      text,
      exitCode: null,
      sessionId: extra.sessionId ?? null,
      output: '',
      wallTimeMs: this.now() - started,
      truncated: false,
      originalTokenCount: null,
      aborted: extra.aborted ?? false,
      pid: extra.pid ?? null,
      ...(extra.notStarted === undefined ? {} : { notStarted: extra.notStarted }),
    };
  }
}

function closeAllNote(session: ExecSession, reason: string): string {
  return `Note: session ${session.id} was closed (${reason}); its processes were stopped.`;
}

/** Exited sessions first, then idle ones, then any; least recently used first within each. */
function pickVictim(sessions: ExecSession[]): ExecSession | undefined {
  const rank = (s: ExecSession): number => (s.exitCode !== null ? 0 : s.activeCalls === 0 ? 1 : 2);
  return [...sessions].sort((a, b) => rank(a) - rank(b) || a.lastUsed - b.lastUsed)[0];
}

function defaultShell(envShell: string | undefined): string {
  return envShell !== undefined && DEFAULT_SHELLS.has(basename(envShell)) ? envShell : '/bin/bash';
}

async function checkWorkdir(workdir: string): Promise<string | null> {
  if (!isAbsolute(workdir)) return `workdir "${workdir}" is not an absolute path; pass an absolute directory.`;
  try {
    const info = await stat(workdir);
    return info.isDirectory() ? null : `workdir "${workdir}" is not a directory; pass a directory.`;
  } catch {
    return `workdir "${workdir}" does not exist or cannot be read; pass an existing directory.`;
  }
}

function shorten(command: string): string {
  const oneLine = command.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 60 ? oneLine : `${oneLine.slice(0, 57)}...`;
}
