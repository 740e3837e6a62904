/**
 * `weft exec --env NAME "…"`: one task run on a remote environment. The thread and its turn live on the
 * remote (its sandbox, checkpoints and rollout); this side starts them through the relay, prints the
 * progress on stderr and the answer on stdout, as `weft exec` does locally. Nobody is there to approve:
 * approvals are declined unless the policy asks for none (the default, `never`, as for `weft exec`).
 */
import { connectHostClient, type HostClient } from '../faces/host-client';
import { finalAnswer, followTurn } from '../faces/follow-turn';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { openRemoteHost } from './environment-host';
import { EXEC_USAGE, parseExecArgs, type ExecArgs } from './exec-args';
import { remoteProjectDir } from './remote-project';

/** Flags of `weft exec` that name local files or threads, which a remote run cannot use yet. */
function unsupported(args: ExecArgs): string[] {
  const out: string[] = [];
  if (args.config.length > 0) out.push('-c');
  if (args.addDirs.length > 0) out.push('--add-dir');
  if (args.images.length > 0) out.push('--image');
  if (args.outputSchema !== undefined) out.push('--output-schema');
  if (args.output === 'codex') out.push('--experimental-json');
  if (args.resume !== null) out.push('resume');
  return out;
}

export async function runRemoteExec(name: string, argv: string[]): Promise<number> {
  let args: ExecArgs;
  try {
    if (name === '') throw new Error('--env takes an environment name');
    args = parseExecArgs(argv);
    const refused = unsupported(args);
    if (refused.length > 0) throw new Error(`${refused.join(', ')} cannot be used with --env yet`);
    if (args.prompt === null) throw new Error('give the prompt as an argument with --env');
  } catch (error) {
    process.stderr.write(`weft exec: ${errorMessage(error)}\n\n${EXEC_USAGE}`);
    return 2;
  }
  const prompt = args.prompt;
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
    const { thread } = await client.request('thread/start', {
      cwd,
      approvalPolicy: (args.approvalPolicy ?? 'never') as 'never',
      ...(args.sandbox === undefined ? {} : { sandbox: args.sandbox as 'workspace-write' }),
      ...(args.model === undefined ? {} : { model: args.model }),
      ...(args.ephemeral ? { ephemeral: true } : {}),
    });
    process.stderr.write(`weft exec: thread ${thread.id} on "${name}" in ${cwd}\n`);
    const turn = await followTurn(client, {
      threadId: thread.id,
      input: [{ type: 'text', text: prompt }],
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
    if (args.output !== 'json') process.stdout.write(`${finalAnswer(turn.items)}\n`);
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
