/**
 * `weft exec --env NAME "…"`: one task run on a remote environment. The thread and its turn live on the
 * remote (its sandbox, checkpoints and rollout); this side starts them through the relay, prints the
 * progress on stderr and the answer on stdout, as `weft exec` does locally. Nobody is there to approve:
 * approvals are declined unless the policy asks for none (the default, `never`, as for `weft exec`). Files
 * the flags name are read and written here (images, the output schema, `-o`); folders are there (`-C`,
 * `--add-dir`), and so are the threads `resume` continues.
 */
import { posix, resolve } from 'node:path';
import { z } from 'zod';
import { JsonValue, type UserInput } from '../../src-preload/protocol';
import { formatKeyPath } from '../config/toml-keys';
import { parseOverrides } from '../config/overrides';
import { connectHostClient, type HostClient } from '../faces/host-client';
import { finalAnswer, followTurn } from '../faces/follow-turn';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { openRemoteHost } from './environment-host';
import { EXEC_USAGE, parseExecArgs, type ExecArgs } from './exec-args';
import { imageInputs, readOutputSchema, readStdinPrompt, writeFileAtomic } from './exec-inputs';
import { remoteProjectDir } from './remote-project';

/** A JSON Schema as the protocol carries it. */
const OutputSchema = z.record(z.string(), JsonValue);

/** Flags of `weft exec` a remote run cannot honour. */
function unsupported(args: ExecArgs): string[] {
  const out: string[] = [];
  if (args.output === 'codex') out.push('--experimental-json');
  // Hooks run there, under the trust given there.
  if (args.bypassHookTrust) out.push('--dangerously-bypass-hook-trust');
  return out;
}

/**
 * The thread's config overrides: `-c` flags as key path → value, and `--add-dir` (folders there, relative
 * to the project folder there) as more writable roots.
 */
function threadConfig(args: ExecArgs, cwd: string): Record<string, JsonValue> | undefined {
  const config: Record<string, JsonValue> = {};
  for (const override of parseOverrides(args.config)) {
    // TOML values (dates included) as JSON would carry them.
    config[formatKeyPath(override.path)] = JsonValue.parse(JSON.parse(JSON.stringify(override.value ?? null)));
  }
  if (args.addDirs.length > 0) {
    const key = 'sandbox_workspace_write.writable_roots';
    const given = config[key];
    config[key] = [...(Array.isArray(given) ? given : []), ...args.addDirs.map((dir) => posix.resolve(cwd, dir))];
  }
  return Object.keys(config).length === 0 ? undefined : config;
}

/** The thread to continue there for `resume ID` / `resume --last [--all]`, or null for a new one. */
async function resumeTarget(client: HostClient, args: ExecArgs, cwd: string, env: string): Promise<string | null> {
  const resume = args.resume;
  if (resume === null) return null;
  if ('id' in resume) return resume.id;
  const { data } = await client.request('thread/list', {
    limit: 1,
    sortKey: 'updated_at',
    ...(resume.all ? {} : { cwd }),
  });
  const newest = data[0];
  if (newest === undefined)
    throw new Error(
      resume.all
        ? `there is no saved thread on environment "${env}" to resume`
        : `no saved thread on environment "${env}" was started in ${cwd}; use resume --last --all to pick from every directory`,
    );
  return newest.id;
}

export async function runRemoteExec(name: string, argv: string[]): Promise<number> {
  let args: ExecArgs;
  let prompt: string;
  let input: UserInput[];
  let outputSchema: Record<string, JsonValue> | undefined;
  try {
    if (name === '') throw new Error('--env takes an environment name');
    args = parseExecArgs(argv);
    const refused = unsupported(args);
    if (refused.length > 0) throw new Error(`${refused.join(', ')} cannot be used with --env`);
    parseOverrides(args.config);
    const given = args.prompt ?? (args.promptFromStdin ? await readStdinPrompt() : null);
    if (given === null) throw new Error('no prompt given (pass it as an argument, or on stdin)');
    prompt = given;
    // Files named here are read here: the images go as data, the schema as JSON.
    input = [
      ...(await imageInputs(
        args.images.map((image) => resolve(image)),
        process.cwd(),
      )),
    ];
    input.push({ type: 'text', text: prompt });
    if (args.outputSchema !== undefined)
      outputSchema = OutputSchema.parse(JSON.parse(JSON.stringify(await readOutputSchema(resolve(args.outputSchema)))));
  } catch (error) {
    process.stderr.write(`weft exec: ${errorMessage(error)}\n\n${EXEC_USAGE}`);
    return 2;
  }
  let gaveUp: string | null = null;
  let client: HostClient;
  try {
    const { host } = await openRemoteHost(name, {
      log: (line) => process.stderr.write(`${line}\n`),
      onGiveUp: (why) => (gaveUp = why),
    });
    client = await connectHostClient(host, {
      label: `exec --env ${name}`,
      clientInfo: { name: 'weft_exec', version: VERSION },
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (error) {
    process.stderr.write(`weft exec: ${gaveUp ?? errorMessage(error)}\n`);
    return 1;
  }
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  try {
    const cwd = await remoteProjectDir(client, name, args.cd);
    const config = threadConfig(args, cwd);
    const overrides = {
      approvalPolicy: (args.approvalPolicy ?? 'never') as 'never',
      ...(args.sandbox === undefined ? {} : { sandbox: args.sandbox as 'workspace-write' }),
      ...(args.model === undefined ? {} : { model: args.model }),
      ...(config === undefined ? {} : { config }),
    };
    const resumeId = await resumeTarget(client, args, cwd, name);
    const { thread } =
      resumeId === null
        ? await client.request('thread/start', { cwd, ...overrides, ...(args.ephemeral ? { ephemeral: true } : {}) })
        : await client.request('thread/resume', { threadId: resumeId, ...overrides });
    process.stderr.write(`weft exec: thread ${thread.id} on "${name}" in ${cwd}\n`);
    const turn = await followTurn(client, {
      threadId: thread.id,
      input,
      ...(outputSchema === undefined ? {} : { overrides: { outputSchema } }),
      signal: abort.signal,
      onNotification: (n) => {
        if (args.output === 'json') process.stdout.write(`${JSON.stringify(n)}\n`);
        else if (n.method === 'item/completed' && n.params.item.type === 'commandExecution') {
          process.stderr.write(`$ ${n.params.item.command} (exit ${String(n.params.item.exitCode)})\n`);
        } else if (n.method === 'item/completed' && n.params.item.type === 'fileChange') {
          process.stderr.write(
            `patch: ${n.params.item.changes.map((c) => c.path).join(', ')} (${n.params.item.status})\n`,
          );
        } else if (n.method === 'weft/environment/status') {
          process.stderr.write(
            `weft exec: ${n.params.state} "${name}"${n.params.message === null ? '' : `: ${n.params.message}`}\n`,
          );
        }
      },
    });
    const answer = finalAnswer(turn.items);
    if (args.output !== 'json') process.stdout.write(`${answer}\n`);
    if (args.outputLastMessage !== undefined) await writeFileAtomic(resolve(args.outputLastMessage), answer);
    if (turn.status === 'completed') return 0;
    if (turn.status === 'interrupted') return 130;
    process.stderr.write(`weft exec: the turn ${turn.status}${turn.error === null ? '' : `: ${turn.error.message}`}\n`);
    return 1;
  } catch (error) {
    process.stderr.write(`weft exec: ${gaveUp ?? errorMessage(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    client.close();
  }
}
