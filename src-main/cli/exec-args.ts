import { parseArgs } from 'node:util';
import { errorMessage } from '../util/errors';

export const EXEC_USAGE = `Usage: weft exec [options] [prompt]
       weft exec [options] resume <thread-id>|--last [prompt]

Runs one task to completion in the current directory. Progress goes to stderr, the final answer to
stdout. Without a prompt argument (or with -) the prompt is read from stdin. Exit status 0 when the
task completed, 1 when it failed, 2 for a usage error, 130 when interrupted.

Options:
  -m, --model <model>        Model to use (default: config \`model\`)
  -C, --cd <dir>             Work in <dir> instead of the current directory
      --env <name>           Run on the environment <name> of config.toml (ssh, kubectl exec…); -C and
                             --add-dir are folders there (default: the remote user's home), files
                             (--image, --output-schema, -o) are here
  -c, --config <key=value>   Override a config value (TOML value; repeatable), e.g. -c model_reasoning_effort="high"
  -a, --approval-policy <p>  untrusted | on-failure | on-request | never (default: never — nobody is there to ask)
  -s, --sandbox <mode>       read-only | workspace-write | danger-full-access (default: workspace-write);
                             read-only also leaves out the MCP servers of the project's config
      --add-dir <dir>        Another directory commands may write (workspace-write; repeatable)
  -i, --image <file>         Attach an image to the prompt (repeatable)
      --output-schema <file> A JSON Schema file the final answer must follow
  -o, --output-last-message <file>
                             Also write the final answer to <file>
      --json                 Print every event as one JSON object per line on stdout (Weft's protocol)
      --experimental-json    Print Codex's exec events (thread.started, item.completed, …) as JSONL
      --resume <thread-id>   Continue a saved thread (same as the resume subcommand)
      --thread-source <s>    Record the new thread's source as <s> (default: exec)
      --ephemeral            Do not save this run as a thread
      --skip-git-repo-check  Accepted for Codex compatibility (Weft runs outside git repositories anyway)
      --dangerously-bypass-hook-trust
                             Run every enabled hook, trusted or not, for this run (hooks run outside
                             the sandbox with your rights): only for automation that vets its hooks
  -h, --help                 Show this help

resume:
  <thread-id>                The saved thread to continue
      --last                 Continue the most recently updated thread started in this directory
      --all                  With --last: consider threads from every directory
`;

/** What `weft exec` was asked to do. */
export interface ExecArgs {
  prompt: string | null;
  /** The prompt is to be read from stdin (none given, or `-`). */
  promptFromStdin: boolean;
  model?: string;
  cd?: string;
  config: string[];
  approvalPolicy?: string;
  sandbox?: string;
  addDirs: string[];
  images: string[];
  outputSchema?: string;
  outputLastMessage?: string;
  /** `json`: Weft's notifications; `codex`: Codex's exec ThreadEvents; `human`: progress for people. */
  output: 'human' | 'json' | 'codex';
  resume: { id: string } | { last: true; all: boolean } | null;
  threadSource?: string;
  ephemeral: boolean;
  /** Run enabled hooks nobody trusted (`--dangerously-bypass-hook-trust`). */
  bypassHookTrust: boolean;
  help: boolean;
}

export class ExecUsageError extends Error {}

const OPTIONS = {
  model: { type: 'string', short: 'm' },
  cd: { type: 'string', short: 'C' },
  config: { type: 'string', short: 'c', multiple: true },
  json: { type: 'boolean' },
  'experimental-json': { type: 'boolean' },
  resume: { type: 'string' },
  last: { type: 'boolean' },
  all: { type: 'boolean' },
  ephemeral: { type: 'boolean' },
  'approval-policy': { type: 'string', short: 'a' },
  sandbox: { type: 'string', short: 's' },
  'add-dir': { type: 'string', multiple: true },
  image: { type: 'string', short: 'i', multiple: true },
  'output-schema': { type: 'string' },
  'output-last-message': { type: 'string', short: 'o' },
  'thread-source': { type: 'string' },
  'skip-git-repo-check': { type: 'boolean' },
  'dangerously-bypass-hook-trust': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses `weft exec`'s arguments: Codex's `exec` flags, and `resume ID|--last [prompt]` as a
 * subcommand (flags may come before or after it). Unknown flags and misplaced arguments throw
 * `ExecUsageError`; nothing unknown ever becomes part of the prompt.
 */
export function parseExecArgs(argv: readonly string[]): ExecArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    throw new ExecUsageError(errorMessage(error));
  }
  const { values } = parsed;
  let positionals = parsed.positionals;
  let resume: ExecArgs['resume'] = null;
  if (positionals[0] === 'resume') {
    if (values.resume !== undefined)
      throw new ExecUsageError('give the thread either as `resume <thread-id>` or as --resume, not both');
    if (values.last) {
      resume = { last: true, all: values.all === true };
      positionals = positionals.slice(1);
    } else {
      const id = positionals[1];
      if (id === undefined)
        throw new ExecUsageError('`resume` needs a thread id, or --last for the most recent thread');
      resume = { id };
      positionals = positionals.slice(2);
    }
  } else if (values.resume !== undefined) {
    resume = { id: values.resume };
  } else if (values.last || values.all) {
    throw new ExecUsageError(
      `--${values.last ? 'last' : 'all'} belongs to the resume subcommand: weft exec resume --last [prompt]`,
    );
  }
  if (values.json && values['experimental-json'])
    throw new ExecUsageError('choose one of --json and --experimental-json');
  const stdinMarker = positionals.length === 1 && positionals[0] === '-';
  const text = stdinMarker ? '' : positionals.join(' ').trim();
  return {
    prompt: text === '' ? null : text,
    promptFromStdin: stdinMarker || positionals.length === 0,
    model: values.model,
    cd: values.cd,
    config: [...(values.config ?? [])],
    approvalPolicy: values['approval-policy'],
    sandbox: values.sandbox,
    addDirs: [...(values['add-dir'] ?? [])],
    images: [...(values.image ?? [])],
    outputSchema: values['output-schema'],
    outputLastMessage: values['output-last-message'],
    output: values['experimental-json'] ? 'codex' : values.json ? 'json' : 'human',
    resume,
    threadSource: values['thread-source'],
    ephemeral: values.ephemeral === true,
    bypassHookTrust: values['dangerously-bypass-hook-trust'] === true,
    help: values.help === true,
  };
}
