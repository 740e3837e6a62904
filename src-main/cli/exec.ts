import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ServerNotification, Turn, UserInput } from '../../src-preload/protocol';
import { ConfigError } from '../config/errors';
import { loadConfig, overrideValue, type ParsedOverride } from '../config';
import { resolveWeftHome } from '../config/home';
import { heldBackMcpMessage, projectConfigNotes } from '../config/project-report';
import { FileKeyStore, keyFor } from '../config/key-store';
import { discoverHooks } from '../config/hooks/discover';
import { hookNotes } from '../config/hooks/report';
import { missingKeyMessage, resolveProvider } from '../config/providers';
import { EXEC_CLIENT_NAME } from '../core/notify-hook';
import { buildSession } from '../core/session-builder';
import { execSubAgentHost } from './exec-sub-agents';
import type { HostRequestSender } from '../tools/types';
import { errorMessage } from '../util/errors';
import { rulesDir } from '../safety/approvals/rules';
import { sharedRuleStore } from '../tools/safety-services';
import type { ThreadStore } from '../store/thread-store';
import type { CheckpointService } from '../checkpoints/service';
import { uuidv7 } from '../util/ids';
import type { WeftConfig } from '../config/schema';
import { agentTreeOf } from '../store/sub-agent-meta';
import { loadLocalImage } from '../tools/local-image';
import { takeEnvFlag } from './env-flag';
import { keepCompiledCode } from '../util/compiled-code';
import { EXEC_USAGE, parseExecArgs, type ExecArgs } from './exec-args';
import { ExecProgress } from './exec-progress';
import { CodexExecEvents, type CodexExecEvent } from './exec-thread-events';
import { ExecInputError, readOutputSchema, readStdinPrompt, writeFileAtomic } from './exec-inputs';

/**
 * Headless runs have nobody to ask: an approval request is declined (the model is told it was
 * rejected) and the person reading stderr is told what was declined and how to allow it.
 */
const declineEverything: HostRequestSender = async (request) => {
  switch (request.method) {
    case 'item/commandExecution/requestApproval':
      process.stderr.write(
        `weft: declined \`${request.params.command}\` (${request.params.reason ?? 'needs approval'}); weft exec cannot ask. To allow it, remember a rule (weft rules add --decision allow -- <prefix>) or use an approval policy that does not ask for it (-a on-request).\n`,
      );
      return { decision: 'decline' };
    case 'item/fileChange/requestApproval':
      process.stderr.write(
        `weft: declined a patch (${request.params.reason ?? 'needs approval'}); weft exec cannot ask.\n`,
      );
      return { decision: 'decline' };
    case 'item/tool/requestUserInput':
      process.stderr.write('weft: the model asked a question; weft exec cannot ask, so it goes unanswered.\n');
      return { answers: {} };
  }
};

export async function runExecCommand(argv: string[]): Promise<number> {
  const remote = takeEnvFlag(argv);
  if (remote !== null) return (await import('./exec-remote')).runRemoteExec(remote.name, remote.rest);
  let args: ExecArgs;
  try {
    args = parseExecArgs(argv);
  } catch (error) {
    process.stderr.write(`weft exec: ${errorMessage(error)}\n\n${EXEC_USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(EXEC_USAGE);
    return 0;
  }
  const prompt = args.prompt ?? (args.promptFromStdin ? await readStdinPrompt() : null);
  if (prompt === null) {
    process.stderr.write(`weft exec: no prompt given (pass it as an argument, or on stdin)\n\n${EXEC_USAGE}`);
    return 2;
  }
  const env = process.env;
  const cwd = resolve(args.cd ?? process.cwd());
  if (args.cd !== undefined) {
    const problem = await folderProblem(cwd);
    if (problem !== null) {
      process.stderr.write(`weft exec: -C ${args.cd}: ${problem}\n`);
      return 2;
    }
  }
  // `-c` flags as written, then the named flags as values.
  const overrides: (string | ParsedOverride)[] = [...args.config];
  if (args.model) overrides.push(overrideValue('model', args.model));
  if (args.approvalPolicy) overrides.push(overrideValue('approval_policy', args.approvalPolicy));
  if (args.sandbox) overrides.push(overrideValue('sandbox_mode', args.sandbox));

  let session;
  let store: ThreadStore | null = null;
  // What the run's sub-agents say: `--json` prints it with their thread ids; otherwise it stays theirs.
  const childNotifications: ((n: ServerNotification) => void)[] = [];
  let checkpoints: CheckpointService | null = null;
  let input: UserInput[];
  let outputSchema: Record<string, unknown> | null;
  try {
    outputSchema = args.outputSchema === undefined ? null : await readOutputSchema(resolve(cwd, args.outputSchema));
    input = await promptInput(prompt, args.images, cwd);
    const weftHome = resolveWeftHome(env);
    // Unless the config or a flag says otherwise, headless runs never ask and write only the workspace.
    const probe = await loadConfig({ weftHome, cwd, overrides, env });
    if (probe.origins.get('approval_policy') === 'default')
      overrides.unshift(overrideValue('approval_policy', 'never'));
    if (probe.origins.get('sandbox_mode') === 'default')
      overrides.unshift(overrideValue('sandbox_mode', 'workspace-write'));
    const loaded =
      probe.origins.get('approval_policy') === 'default' || probe.origins.get('sandbox_mode') === 'default'
        ? await loadConfig({ weftHome, cwd, overrides, env })
        : probe;
    for (const warning of loaded.warnings) process.stderr.write(`weft: warning: ${warning}\n`);
    for (const line of projectConfigNotes(loaded.projectTrust, cwd)) process.stderr.write(`${line}\n`);
    for (const server of loaded.heldBackMcpServers)
      process.stderr.write(`weft: warning: ${heldBackMcpMessage(server)}\n`);
    const hooks = await discoverHooks({ weftHome, cwd, env, projectTrust: loaded.projectTrust });
    for (const line of hookNotes(hooks, args.bypassHookTrust)) process.stderr.write(`${line}\n`);
    const config = withAddedDirs(
      loaded.config,
      args.addDirs.map((dir) => resolve(cwd, dir)),
    );
    const rules = await sharedRuleStore(rulesDir(weftHome), (w) => process.stderr.write(`weft: warning: ${w}\n`));
    let provider = resolveProvider(config, env);
    // A key saved from Settings (WEFT_HOME/auth.json) applies when neither config nor env has one.
    const saved = provider.apiKey === null ? await keyFor(provider, new FileKeyStore(weftHome)) : null;
    if (saved !== null) provider = { ...provider, apiKey: saved.key, apiKeySource: null };
    const missing = missingKeyMessage(provider);
    if (missing) {
      process.stderr.write(`weft: ${missing}\n`);
      return 1;
    }
    // An Undo a crash cut short is finished first: this run may continue that thread or work in those files.
    await finishInterruptedUndo(weftHome);
    const persisted = await openThread({
      weftHome,
      cwd,
      resume: args.resume,
      ephemeral: args.ephemeral,
      model: config.model,
      provider: provider.id,
      source: args.threadSource ?? 'exec',
    });
    store = persisted?.store ?? null;
    const resumed = persisted?.state != null;
    // A saved run checkpoints what its tool calls change, so `weft threads revert --files` can undo it.
    checkpoints = persisted ? await openCheckpoints(config, weftHome) : null;
    const last = persisted?.state?.lastTurnContext ?? null;
    const subAgents = execSubAgentHost({
      store,
      config,
      provider,
      sendRequest: declineEverything,
      env,
      rules,
      weftHome,
      checkpoints: checkpoints ?? undefined,
      protectedPaths: loaded.projectTrust.trustedConfigDirs,
      onNotification: (n) => childNotifications.forEach((listener) => listener(n)),
    });
    // Where a resumed thread is in its session tree (a new one is a root); null: Codex's own sub-agents.
    const tree = persisted?.state ? agentTreeOf(persisted.state.thread) : undefined;
    session = buildSession({
      config,
      provider,
      cwd: last && !args.cd ? last.cwd : cwd,
      sendRequest: declineEverything,
      // A resumed sub-agent spawns its own within `agents.max_depth`, from where it is in its tree.
      subAgents: tree === null ? undefined : subAgents,
      agentTree: tree ?? undefined,
      env,
      rules,
      weftHome,
      threadId: persisted?.threadId,
      recorder: persisted?.recorder,
      checkpoints: checkpoints ?? undefined,
      // A resumed run takes its settings from the config and flags, as a new one does.
      saved: persisted?.state,
      protectedPaths: loaded.projectTrust.trustedConfigDirs,
      hooks: {
        hooks: hooks.hooks,
        bypassTrust: args.bypassHookTrust,
        transcriptPath: persisted?.recorder.path ?? null,
      },
    });
    if (persisted && args.output !== 'codex')
      process.stderr.write(`weft: thread ${persisted.threadId}${resumed ? ' (resumed)' : ''}\n`);
  } catch (error) {
    process.stderr.write(
      `weft: ${error instanceof ConfigError || error instanceof ExecInputError ? error.message : errorMessage(error)}\n`,
    );
    await checkpoints?.dispose();
    await store?.close();
    return 1;
  }

  const progress = new ExecProgress({ stdout: process.stdout, stderr: process.stderr }, cwd);
  const codexEvents = args.output === 'codex' ? new CodexExecEvents(session.tokenUsage) : null;
  const writeEvents = (events: readonly CodexExecEvent[]): void => {
    for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
  };
  if (codexEvents) writeEvents(codexEvents.threadStarted(session.threadId));
  if (args.output === 'json') childNotifications.push((n) => process.stdout.write(`${JSON.stringify(n)}\n`));
  let lastAnswer: string | null = null;
  const finished = new Promise<Turn>((resolveTurn) => {
    session.subscribe((n: ServerNotification) => {
      if (n.method === 'mcpServer/startupStatus/updated' && n.params.status === 'failed') {
        // Whatever the output mode, a server that failed is said on stderr: its tools are missing from this run.
        process.stderr.write(
          `weft: warning: MCP server "${n.params.name}" is not available (${n.params.error ?? 'failed'}); its tools are left out\n`,
        );
      }
      if (codexEvents) writeEvents(codexEvents.handle(n));
      else if (args.output === 'json') process.stdout.write(`${JSON.stringify(n)}\n`);
      else progress.handle(n);
      if (n.method === 'item/completed' && n.params.item.type === 'agentMessage') lastAnswer = n.params.item.text;
      if (n.method === 'turn/completed') resolveTurn(n.params.turn);
    });
  });
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write('\nweft: interrupting… (press Ctrl-C again to quit at once)\n');
    void session.interrupt();
  };
  process.on('SIGINT', onSigint);
  try {
    await session.startTurn(input, undefined, { outputSchema, client: EXEC_CLIENT_NAME });
    const turn = await finished;
    keepCompiledCode();
    if (args.outputLastMessage !== undefined)
      await writeFileAtomic(resolve(cwd, args.outputLastMessage), lastAnswer ?? '');
    if (turn.status === 'failed') {
      process.stderr.write(`weft: ${turn.error?.message ?? 'the turn failed'}\n`);
      return 1;
    }
    if (turn.status === 'interrupted') {
      process.stderr.write('weft: interrupted\n');
      return 130;
    }
    if (args.output === 'human' && !progress.answerPrinted && progress.finalAnswer !== null) {
      process.stdout.write(progress.finalAnswer.endsWith('\n') ? progress.finalAnswer : `${progress.finalAnswer}\n`);
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    await session.shutdown();
    await checkpoints?.dispose();
    await store?.close();
  }
}

/** The checkpoint store of the Weft home with the config's limits; null when `[checkpoints] enabled = false`. */
async function openCheckpoints(config: WeftConfig, weftHome: string): Promise<CheckpointService | null> {
  const { checkpointSettings } = await import('../checkpoints/settings');
  const settings = checkpointSettings(config, weftHome);
  if (!settings.enabled) return null;
  const { CheckpointService } = await import('../checkpoints/service');
  return new CheckpointService(settings.service);
}

/** Finishes the restores (and thread reverts) a process that died left half done. */
async function finishInterruptedUndo(weftHome: string): Promise<void> {
  const [{ CheckpointService }, { finishInterruptedRestores }, { ThreadStore }] = await Promise.all([
    import('../checkpoints/service'),
    import('../server/restore-recovery'),
    import('../store/thread-store'),
  ]);
  const service = new CheckpointService({ weftHome });
  try {
    await finishInterruptedRestores(
      service,
      () => {
        const store = ThreadStore.open(weftHome, {
          repair: false,
          onWarning: (m) => process.stderr.write(`weft: warning: ${m}\n`),
        });
        return { store, release: () => store.close() };
      },
      (line) => process.stderr.write(`${line}\n`),
    );
  } finally {
    await service.dispose();
  }
}

type ResumeTarget = ExecArgs['resume'];

/** The thread this run records into: a new one, a resumed one, or none (`--ephemeral`). */
async function openThread(opts: {
  weftHome: string;
  cwd: string;
  resume: ResumeTarget;
  ephemeral: boolean;
  model: string;
  provider: string;
  source: string;
}) {
  if (opts.ephemeral) {
    if (opts.resume)
      throw new ExecInputError('--ephemeral cannot continue a saved thread; drop --ephemeral to resume it');
    return null;
  }
  const { ThreadStore } = await import('../store/thread-store');
  // A one-shot run does not wait for (or do) a background re-index of every thread.
  const store = ThreadStore.open(opts.weftHome, {
    repair: false,
    onWarning: (m) => process.stderr.write(`weft: warning: ${m}\n`),
  });
  try {
    if (opts.resume) {
      const id = 'id' in opts.resume ? opts.resume.id : lastThreadId(store, opts.resume.all ? null : opts.cwd);
      const opened = store.openForAppend(id);
      return { store, threadId: opened.state.thread.id, recorder: opened.recorder, state: opened.state };
    }
    const threadId = uuidv7();
    const created = store.createThread({
      id: threadId,
      cwd: opts.cwd,
      modelProvider: opts.provider,
      model: opts.model,
      source: opts.source,
      baseInstructions: null,
    });
    return { store, threadId, recorder: created.recorder, state: null };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Why `dir` cannot be worked in, or null when it is a folder. */
async function folderProblem(dir: string): Promise<string | null> {
  const info = await stat(dir).catch(() => null);
  if (info === null) return 'no such folder';
  return info.isDirectory() ? null : 'not a folder';
}

/** `resume --last`: the most recently updated thread (started in `cwd`, unless null). */
function lastThreadId(store: ThreadStore, cwd: string | null): string {
  const newest = store.list({ limit: 1, sortKey: 'updated_at', ...(cwd === null ? {} : { cwd }) }).data[0];
  if (!newest)
    throw new ExecInputError(
      cwd === null
        ? 'there is no saved thread to resume'
        : `no saved thread was started in ${cwd}; use resume --last --all to pick from every directory`,
    );
  return newest.id;
}

/** The turn's input: the images (checked now, so a wrong path fails the run) and then the prompt. */
async function promptInput(prompt: string, images: readonly string[], cwd: string): Promise<UserInput[]> {
  const input: UserInput[] = [];
  for (const image of images) {
    const path = resolve(cwd, image);
    const loaded = await loadLocalImage(path, cwd);
    if (!loaded.ok) throw new ExecInputError(`--image: ${loaded.error}`);
    input.push({ type: 'localImage', path });
  }
  input.push({ type: 'text', text: prompt });
  return input;
}

/** `--add-dir`: more writable roots for the workspace-write sandbox. */
function withAddedDirs(config: WeftConfig, dirs: readonly string[]): WeftConfig {
  if (dirs.length === 0) return config;
  const ww = config.sandbox_workspace_write ?? {};
  return { ...config, sandbox_workspace_write: { ...ww, writable_roots: [...(ww.writable_roots ?? []), ...dirs] } };
}
