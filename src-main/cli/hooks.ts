// `weft hooks`: lists the lifecycle hooks configured for a folder (the user's and its trusted project's),
// trusts them as they are now (their hash is recorded in WEFT_HOME/config.toml), and turns them off or on.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveWeftHome } from '../config/home';
import { hookMetadata, hooksListEntry, hooksOf } from '../config/hooks/list';
import { setHookEnabled, trustHooks } from '../config/hooks/trust';
import { hookActionLabel, type ConfiguredHook } from '../config/hooks/discover';
import { dispatchSubCommand } from './sub-commands';

const USAGE = `Usage: weft hooks list [--cd <dir>] [--json]
       weft hooks trust <key>…|--all [--cd <dir>]
       weft hooks disable <key>… [--cd <dir>]
       weft hooks enable <key>… [--cd <dir>]

Hooks are your programs, run at points of a thread's life (PreToolUse, Stop, …) from hooks.json and the
[hooks] tables of config.toml in WEFT_HOME and in a trusted project's .weft/. They run OUTSIDE the
sandbox, with your rights. A hook runs only once you trusted it as it is: a new or changed hook is
skipped with a warning until you do.

  list     Show each hook: its key, event, matcher, command, source file and whether it is trusted
  trust    Trust these hooks (or every hook not trusted yet, --all) with what they run now
  disable  Turn hooks off (they stay in their files)
  enable   Turn them on again
`;

const FOLDER = { cd: { type: 'string', short: 'C' } } as const;

export async function runHooksCommand(argv: string[]): Promise<number> {
  const weftHome = resolveWeftHome(process.env);
  return dispatchSubCommand(
    {
      command: 'hooks',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(weftHome, rest) },
        trust: { run: (rest) => trust(weftHome, rest) },
        disable: { run: (rest) => setEnabled(weftHome, rest, false) },
        enable: { run: (rest) => setEnabled(weftHome, rest, true) },
      },
    },
    argv,
  );
}

async function found(weftHome: string, cd: string | undefined) {
  const cwd = resolve(cd ?? process.cwd());
  return { cwd, hooks: await hooksOf({ weftHome, cwd, env: process.env }) };
}

async function list(weftHome: string, argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...FOLDER, json: { type: 'boolean' } } });
  const { cwd, hooks } = await found(weftHome, values.cd);
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(hooksListEntry(cwd, hooks), null, 2)}\n`);
    return 0;
  }
  for (const e of hooks.errors) process.stderr.write(`weft: warning: ${e.path}: ${e.message}\n`);
  for (const w of hooks.warnings) process.stderr.write(`weft: warning: ${w}\n`);
  if (hooks.hooks.length === 0) {
    process.stdout.write('No hooks are configured for this folder.\n');
    return 0;
  }
  for (const hook of hooks.hooks) process.stdout.write(describe(hook));
  return 0;
}

function describe(hook: ConfiguredHook): string {
  const m = hookMetadata(hook);
  const state = !m.enabled ? 'disabled' : m.trustStatus === 'modified' ? 'changed since trusted' : m.trustStatus;
  return [
    `${hook.event}${hook.matcher === null ? '' : ` (matcher ${hook.matcher})`}: ${state}`,
    `  ${hook.action.type === 'command' ? 'command' : 'calls  '}: ${hookActionLabel(hook.action)}`,
    `  timeout: ${hook.timeoutSec}s${hook.async ? ', async' : ''}`,
    `  from:    ${hook.sourcePath} (${hook.source})`,
    `  key:     ${hook.key}`,
    '',
  ].join('\n');
}

async function trust(weftHome: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...FOLDER, all: { type: 'boolean' } },
  });
  if ((values.all === true) === positionals.length > 0) {
    process.stderr.write(
      `weft hooks: name the hooks to trust (their keys, from weft hooks list), or --all\n\n${USAGE}`,
    );
    return 2;
  }
  const { hooks } = await found(weftHome, values.cd);
  const wanted = hooks.hooks.filter((h) =>
    values.all === true ? h.trustStatus !== 'trusted' : positionals.includes(h.key),
  );
  const unknown = positionals.filter((key) => !hooks.hooks.some((h) => h.key === key));
  if (unknown.length > 0) {
    process.stderr.write(`weft hooks: no hook ${unknown.join(', ')} is configured here; see weft hooks list\n`);
    return 1;
  }
  if (wanted.length === 0) {
    process.stdout.write('Every hook here is trusted already.\n');
    return 0;
  }
  await trustHooks(weftHome, hooks.hooks, wanted);
  for (const hook of wanted)
    process.stdout.write(
      `trusted ${hook.event}: ${hookActionLabel(hook.action)} (runs outside the sandbox with your rights)\n`,
    );
  return 0;
}

async function setEnabled(weftHome: string, argv: string[], enabled: boolean): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: FOLDER });
  if (positionals.length === 0) {
    process.stderr.write(`weft hooks: name the hooks (their keys, from weft hooks list)\n\n${USAGE}`);
    return 2;
  }
  const { hooks } = await found(weftHome, values.cd);
  const unknown = positionals.filter((key) => !hooks.hooks.some((h) => h.key === key));
  if (unknown.length > 0) {
    process.stderr.write(`weft hooks: no hook ${unknown.join(', ')} is configured here; see weft hooks list\n`);
    return 1;
  }
  for (const key of positionals) await setHookEnabled(weftHome, key, enabled);
  process.stdout.write(`${enabled ? 'enabled' : 'disabled'} ${positionals.join(', ')}\n`);
  return 0;
}
