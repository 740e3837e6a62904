import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServerNotification, Turn } from '../../src-preload/protocol';
import { ConfigError } from '../config/errors';
import { loadConfig } from '../config';
import { resolveWeftHome } from '../config/home';
import { missingKeyMessage, resolveProvider } from '../config/providers';
import { createSession } from '../core/create-session';
import type { ServerRequestSender } from '../tools/types';
import { errorMessage } from '../util/errors';
import { rulesDir } from '../safety/approvals/rules';
import { sharedRuleStore } from '../tools/safety-services';
import type { ThreadStore } from '../store/thread-store';
import { uuidv7 } from '../util/ids';
import { ExecProgress } from './exec-progress';

const USAGE = `Usage: weft exec [options] <prompt>
       weft exec [options] -          (read the prompt from stdin)

Runs one task to completion in the current directory. Progress goes to stderr, the final answer to
stdout. Exit status 0 when the task completed, 1 when it failed, 130 when interrupted.

Options:
  -m, --model <model>        Model to use (default: config \`model\`)
  -C, --cd <dir>             Work in <dir> instead of the current directory
  -c, --config <key=value>   Override a config value (TOML value; repeatable), e.g. -c model_reasoning_effort="high"
  -a, --approval-policy <p>  untrusted | on-failure | on-request | never (default: never — nobody is there to ask)
  -s, --sandbox <mode>       read-only | workspace-write | danger-full-access (default: workspace-write)
      --json                 Print every event as one JSON object per line on stdout
      --resume <thread-id>   Continue a saved thread instead of starting a new one
      --ephemeral            Do not save this run as a thread
  -h, --help                 Show this help
`;

/**
 * Headless runs have nobody to ask: an approval request is declined (the model is told it was
 * rejected) and the person reading stderr is told what was declined and how to allow it.
 */
const declineEverything: ServerRequestSender = async (request) => {
  switch (request.method) {
    case 'item/commandExecution/requestApproval':
      process.stderr.write(`weft: declined \`${request.params.command}\` (${request.params.reason ?? 'needs approval'}); weft exec cannot ask. To allow it, remember a rule (weft rules add --decision allow -- <prefix>) or use an approval policy that does not ask for it (-a on-request).\n`);
      return { decision: 'decline' };
    case 'item/fileChange/requestApproval':
      process.stderr.write(`weft: declined a patch (${request.params.reason ?? 'needs approval'}); weft exec cannot ask.\n`);
      return { decision: 'decline' };
    case 'item/tool/requestUserInput':
      process.stderr.write('weft: the model asked a question; weft exec cannot ask, so it goes unanswered.\n');
      return { answers: {} };
  }
};

export async function runExecCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        model: { type: 'string', short: 'm' },
        cd: { type: 'string', short: 'C' },
        config: { type: 'string', short: 'c', multiple: true },
        json: { type: 'boolean' },
        resume: { type: 'string' },
        ephemeral: { type: 'boolean' },
        'approval-policy': { type: 'string', short: 'a' },
        sandbox: { type: 'string', short: 's' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`weft exec: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const prompt = await readPrompt(positionals);
  if (prompt === null) {
    process.stderr.write(`weft exec: no prompt given\n\n${USAGE}`);
    return 2;
  }
  const env = process.env;
  const cwd = resolve(values.cd ?? process.cwd());
  if (values.cd !== undefined) {
    const problem = await folderProblem(cwd);
    if (problem !== null) {
      process.stderr.write(`weft exec: -C ${values.cd}: ${problem}\n`);
      return 2;
    }
  }
  const overrides = [...(values.config ?? [])];
  if (values.model) overrides.push(`model=${JSON.stringify(values.model)}`);
  if (values['approval-policy']) overrides.push(`approval_policy=${JSON.stringify(values['approval-policy'])}`);
  if (values.sandbox) overrides.push(`sandbox_mode=${JSON.stringify(values.sandbox)}`);

  let session;
  let store: ThreadStore | null = null;
  try {
    const weftHome = resolveWeftHome(env);
    // Unless the config or a flag says otherwise, headless runs never ask and write only the workspace.
    const probe = await loadConfig({ weftHome, cwd, overrides, env });
    if (probe.origins.get('approval_policy') === 'default') overrides.unshift('approval_policy="never"');
    if (probe.origins.get('sandbox_mode') === 'default') overrides.unshift('sandbox_mode="workspace-write"');
    const loaded = probe.origins.get('approval_policy') === 'default' || probe.origins.get('sandbox_mode') === 'default' ? await loadConfig({ weftHome, cwd, overrides, env }) : probe;
    for (const warning of loaded.warnings) process.stderr.write(`weft: warning: ${warning}\n`);
    const rules = await sharedRuleStore(rulesDir(weftHome), (w) => process.stderr.write(`weft: warning: ${w}\n`));
    const provider = resolveProvider(loaded.config, env);
    const missing = missingKeyMessage(provider);
    if (missing) {
      process.stderr.write(`weft: ${missing}\n`);
      return 1;
    }
    const persisted = await openThread({ weftHome, cwd, resume: values.resume, ephemeral: values.ephemeral === true, model: loaded.config.model, provider: provider.id });
    store = persisted?.store ?? null;
    const last = persisted?.state?.lastTurnContext ?? null;
    session = createSession({
      config: loaded.config,
      provider,
      cwd: last && !values.cd ? last.cwd : cwd,
      sendRequest: declineEverything,
      env,
      rules,
      weftHome,
      threadId: persisted?.threadId,
      recorder: persisted?.recorder,
      initial: persisted?.state
        ? {
            history: persisted.state.history,
            turns: persisted.state.turns.map((turn) => ({ turn: { ...turn, items: [] }, items: turn.items })),
            tokenUsage: persisted.state.tokenUsage,
            contextRef: null,
          }
        : undefined,
    });
    if (persisted) process.stderr.write(`weft: thread ${persisted.threadId}${values.resume ? ' (resumed)' : ''}\n`);
  } catch (error) {
    process.stderr.write(`weft: ${error instanceof ConfigError ? error.message : errorMessage(error)}\n`);
    await store?.close();
    return 1;
  }

  const progress = new ExecProgress({ stdout: process.stdout, stderr: process.stderr }, cwd);
  const finished = new Promise<Turn>((resolveTurn) => {
    session.subscribe((n: ServerNotification) => {
      if (values.json) process.stdout.write(`${JSON.stringify(n)}\n`);
      else progress.handle(n);
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
    await session.startTurn([{ type: 'text', text: prompt }]);
    const turn = await finished;
    if (turn.status === 'failed') {
      process.stderr.write(`weft: ${turn.error?.message ?? 'the turn failed'}\n`);
      return 1;
    }
    if (turn.status === 'interrupted') {
      process.stderr.write('weft: interrupted\n');
      return 130;
    }
    if (!values.json && !progress.answerPrinted && progress.finalAnswer !== null) {
      process.stdout.write(progress.finalAnswer.endsWith('\n') ? progress.finalAnswer : `${progress.finalAnswer}\n`);
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    await session.shutdown();
    await store?.close();
  }
}

/** The thread this run records into: a new one, a resumed one, or none (`--ephemeral`). */
async function openThread(opts: { weftHome: string; cwd: string; resume: string | undefined; ephemeral: boolean; model: string; provider: string }) {
  if (opts.ephemeral) return null;
  const { ThreadStore } = await import('../store/thread-store');
  // A one-shot run does not wait for (or do) a background re-index of every thread.
  const store = ThreadStore.open(opts.weftHome, { repair: false, onWarning: (m) => process.stderr.write(`weft: warning: ${m}\n`) });
  if (opts.resume) {
    const opened = store.openForAppend(opts.resume);
    return { store, threadId: opened.state.thread.id, recorder: opened.recorder, state: opened.state };
  }
  const threadId = uuidv7();
  const created = store.createThread({ id: threadId, cwd: opts.cwd, modelProvider: opts.provider, model: opts.model, source: 'exec', baseInstructions: null });
  return { store, threadId, recorder: created.recorder, state: null };
}

/** Why `dir` cannot be worked in, or null when it is a folder. */
async function folderProblem(dir: string): Promise<string | null> {
  const info = await stat(dir).catch(() => null);
  if (info === null) return 'no such folder';
  return info.isDirectory() ? null : 'not a folder';
}

async function readPrompt(positionals: string[]): Promise<string | null> {
  if (positionals.length === 1 && positionals[0] === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const text = Buffer.concat(chunks).toString('utf8').trim();
    return text === '' ? null : text;
  }
  const text = positionals.join(' ').trim();
  return text === '' ? null : text;
}
