// `weft automations`: the automation files, their runs, and `due`, which runs what is owed and exits (for a
// systemd timer, cron or launchd). Runs go through the same core as the app, in this process.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveWeftHome } from '../config';
import { nextFire } from '../automations/cron';
import { readRuns, type AutomationRun } from '../automations/history';
import { describeZodError } from '../../src-preload/protocol';
import { AutomationFile, isBroken } from '../automations/record';
import { runAutomation, type RunOutcome } from '../automations/runner';
import { runDueAutomations } from '../automations/scheduler';
import {
  createAutomation,
  listAutomations,
  newAutomationId,
  readAutomation,
  removeAutomation,
  updateAutomation,
  usableAutomation,
} from '../automations/store';
import { timerFiles, writeTimerFiles } from '../automations/timer';
import { VERSION } from '../version';
import { RECORD_OPTIONS, refusedOptions, triggerFlags, triggerOf } from './automation-options';
import { dispatchSubCommand } from './sub-commands';

const USAGE = `Usage: weft automations list [--json]
       weft automations add --name NAME --project DIR (--schedule "CRON" [--timezone TZ] | --manual |
                            --on-commit BRANCH | --on-change PATH [--debounce SECONDS])
                            --prompt TEXT [--local | --worktree] [--env NAME] [--model M] [--effort E]
                            [--sandbox MODE]
       weft automations edit ID [--name N] [--prompt TEXT] [--enable | --disable] [--local | --worktree]
                            [--env NAME | --here]
                            [--schedule "CRON" [--timezone TZ] | --manual | --on-commit BRANCH |
                             --on-change PATH [--debounce SECONDS]] [--model M] [--effort E] [--sandbox MODE]
       weft automations rm ID
       weft automations run ID         Run it now and wait for the end
       weft automations runs ID [--json]
       weft automations due            Run every automation whose time has come, once each, then exit
       weft automations install-timer [--dir DIR]

An automation is a prompt the agent runs in a project on a schedule (cron, in a time zone), on a new
commit on a branch (git polled; also by due), on a change to files under a path (debounced while the
app watches them; due compares them with their state after the last run or look), or when asked,
each run in a new git worktree of the project (--worktree, the default) or in the project (--local),
on this machine or, with --env NAME, on a remote environment of config.toml ([environments.NAME]; the
project is a folder there, the run's thread and worktree are there, its record is here). It never asks
anyone: its approval policy is "never", so what the sandbox refuses is refused and reported.
Each is a file, WEFT_HOME/automations/<id>.toml, which you may edit; its runs are in <id>.runs.jsonl.
Two runs of one automation never overlap; a schedule missed while the machine slept runs once.

The app (the desktop app, weft serve, weft app-server) runs them while it is open (of several on one
WEFT_HOME, one), and shows runs made elsewhere as they end. Without it, run \`weft automations due\`
every minute: install-timer writes a systemd user timer (Linux) or a LaunchAgent (macOS) that does,
and prints the command that turns it on.
`;

export async function runAutomationsCommand(argv: string[]): Promise<number> {
  return dispatchSubCommand(
    {
      command: 'automations',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(rest) },
        add: { run: (rest) => add(rest) },
        edit: { run: (rest) => edit(rest) },
        rm: { aliases: ['remove'], run: (rest) => remove(rest) },
        run: { run: (rest) => runNow(rest) },
        runs: { run: (rest) => runs(rest) },
        due: { run: () => due() },
        'install-timer': { run: (rest) => installTimer(rest) },
      },
    },
    argv,
  );
}

const home = (): string => resolveWeftHome(process.env);

async function list(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const weftHome = home();
  const now = Date.now();
  const rows = await Promise.all(
    (await listAutomations(weftHome)).map(async (a) => {
      if (isBroken(a)) return { id: a.id, file: a.file, problem: a.problem };
      const last = (await readRuns(weftHome, a.id)).at(-1) ?? null;
      const next =
        a.enabled && a.trigger.type === 'schedule' ? nextFire(a.trigger.cron, a.trigger.timezone, now) : null;
      return { ...a, nextRun: next === null ? null : new Date(next).toISOString(), lastRun: last };
    }),
  );
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (rows.length === 0) process.stdout.write(`No automations (weft automations add --help).\n`);
  for (const row of rows) {
    if ('problem' in row) {
      process.stdout.write(`${row.id}  CANNOT BE USED: ${row.problem}\n`);
      continue;
    }
    const trigger =
      row.trigger.type === 'schedule'
        ? `"${row.trigger.cron}"${row.trigger.timezone === undefined ? '' : ` ${row.trigger.timezone}`}`
        : row.trigger.type === 'commit'
          ? `on a commit to ${row.trigger.branch}`
          : row.trigger.type === 'fileChange'
            ? `on a change under ${row.trigger.path ?? '.'}`
            : 'manual';
    const state = row.enabled ? `next ${row.nextRun ?? '—'}` : 'disabled';
    const last = row.lastRun === null ? 'never ran' : `last ${describeRun(row.lastRun)}`;
    process.stdout.write(
      `${row.id}  ${row.name}  ${trigger}  ${row.environment}${row.remote === undefined ? '' : ` on ${row.remote}`}  ${state}  ${last}\n`,
    );
  }
  return 0;
}

function describeRun(run: AutomationRun): string {
  const when = new Date(run.startedAt).toISOString();
  return `${when} ${run.status}${run.reason === null ? '' : ` (${run.reason})`}${run.threadId === null ? '' : ` thread ${run.threadId}`}`;
}

async function add(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: RECORD_OPTIONS });
  const missing = (['name', 'project', 'prompt'] as const).filter((k) => values[k] === undefined);
  const triggers = [values.schedule, values.manual, values['on-commit'], values['on-change']].filter(
    (v) => v !== undefined && v !== false,
  ).length;
  if (missing.length > 0 || triggers !== 1) {
    process.stderr.write(
      `weft automations add: give --name, --project, --prompt and one of --schedule, --manual, --on-commit or --on-change${missing.length > 0 ? ` (missing: ${missing.map((m) => `--${m}`).join(', ')})` : ''}\n`,
    );
    return 2;
  }
  if (values.local === true && values.worktree === true) {
    process.stderr.write('weft automations add: choose --local or --worktree, not both\n');
    return 2;
  }
  const refused = refusedOptions('add', values, values['on-change'] !== undefined ? 'fileChange' : null);
  if (refused !== null) {
    process.stderr.write(refused);
    return 2;
  }
  const weftHome = home();
  const name = values.name ?? '';
  if (values.env !== undefined && !(await knownEnvironment('add', values.env))) return 2;
  const parsed = AutomationFile.safeParse({
    name,
    // A remote project is a folder there, given as it is there.
    project: values.env === undefined ? resolve(values.project ?? '') : (values.project ?? ''),
    prompt: values.prompt ?? '',
    enabled: true,
    environment: values.local === true ? 'local' : 'worktree',
    ...(values.env === undefined ? {} : { remote: values.env }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.effort === undefined ? {} : { effort: values.effort }),
    sandbox: values.sandbox ?? 'workspace-write',
    created_at: new Date().toISOString(),
    trigger: triggerOf(values),
  });
  if (!parsed.success) {
    process.stderr.write(`weft automations add: ${describeZodError(parsed.error, '')}\n`);
    return 2;
  }
  const automation = await createAutomation(weftHome, await newAutomationId(weftHome, name), parsed.data);
  process.stdout.write(`Added ${automation.id}: ${automation.file}\n`);
  return 0;
}

async function edit(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...RECORD_OPTIONS, enable: { type: 'boolean' }, disable: { type: 'boolean' } },
  });
  const [id] = positionals;
  if (id === undefined) {
    process.stderr.write('weft automations edit: name the automation (weft automations list)\n');
    return 2;
  }
  const triggers = triggerFlags(values);
  if (triggers.length > 1) {
    process.stderr.write(
      `weft automations edit: give one trigger, not ${triggers.map((t) => `--${t}`).join(' and ')} (--schedule, --manual, --on-commit or --on-change)\n`,
    );
    return 2;
  }
  if (values.enable === true && values.disable === true) {
    process.stderr.write('weft automations edit: choose --enable or --disable, not both\n');
    return 2;
  }
  if (values.local === true && values.worktree === true) {
    process.stderr.write('weft automations edit: choose --local or --worktree, not both\n');
    return 2;
  }
  const current = await readAutomation(home(), id);
  // The trigger after the edit; unknown for a file that cannot be read (the result is checked anyway).
  const triggerType =
    triggers[0] === undefined
      ? isBroken(current)
        ? null
        : current.trigger.type
      : { schedule: 'schedule', manual: 'manual', 'on-commit': 'commit', 'on-change': 'fileChange' }[triggers[0]];
  const refused = refusedOptions('edit', values, triggerType);
  if (refused !== null) {
    process.stderr.write(refused);
    return 2;
  }
  if (values.env !== undefined && !(await knownEnvironment('edit', values.env))) return 2;
  const remote = values.env ?? (values.here === true ? undefined : isBroken(current) ? undefined : current.remote);
  const changes: { path: string[]; value: unknown }[] = [];
  const set = (path: string[], value: unknown): void => {
    if (value !== undefined) changes.push({ path, value });
  };
  set(['name'], values.name);
  set(
    ['project'],
    values.project === undefined ? undefined : remote === undefined ? resolve(values.project) : values.project,
  );
  set(['remote'], values.env);
  if (values.here === true) set(['remote'], null);
  set(['prompt'], values.prompt);
  set(['model'], values.model);
  set(['effort'], values.effort);
  set(['sandbox'], values.sandbox);
  if (values.enable === true) set(['enabled'], true);
  if (values.disable === true) set(['enabled'], false);
  if (values.local === true) set(['environment'], 'local');
  if (values.worktree === true) set(['environment'], 'worktree');
  // Another trigger's keys go with it.
  const drop = (...keys: string[]): void => {
    for (const key of keys) changes.push({ path: ['trigger', key], value: null });
  };
  if (values.manual === true) {
    set(['trigger', 'type'], 'manual');
    drop('cron', 'timezone', 'branch', 'path', 'debounce_seconds');
  }
  if (values.schedule !== undefined) {
    set(['trigger', 'type'], 'schedule');
    set(['trigger', 'cron'], values.schedule);
    drop('branch', 'path', 'debounce_seconds');
  }
  if (values['on-commit'] !== undefined) {
    set(['trigger', 'type'], 'commit');
    set(['trigger', 'branch'], values['on-commit']);
    drop('cron', 'timezone', 'path', 'debounce_seconds');
  }
  if (values['on-change'] !== undefined) {
    set(['trigger', 'type'], 'fileChange');
    if (values['on-change'] === '.') drop('path');
    else set(['trigger', 'path'], values['on-change']);
    drop('cron', 'timezone', 'branch');
  }
  set(['trigger', 'timezone'], values.timezone);
  set(['trigger', 'debounce_seconds'], values.debounce === undefined ? undefined : Number(values.debounce));
  if (changes.length === 0) {
    process.stderr.write('weft automations edit: nothing to change (see weft automations --help)\n');
    return 2;
  }
  const automation = await updateAutomation(home(), id, changes);
  process.stdout.write(`Changed ${automation.id}: ${automation.file}\n`);
  return 0;
}

/** Whether config.toml has environment `name`; when not, says so on stderr, naming those it has. */
async function knownEnvironment(verb: 'add' | 'edit', name: string): Promise<boolean> {
  const { configuredEnvironments } = await import('./environment-host');
  const all = await configuredEnvironments();
  if (all[name] !== undefined) return true;
  const names = Object.keys(all).sort();
  process.stderr.write(
    `weft automations ${verb}: --env ${name}: no environment named "${name}" in config.toml (${names.length === 0 ? 'none is configured; add one with `weft environments add`' : `configured: ${names.join(', ')}`})\n`,
  );
  return false;
}

async function remove(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const [id] = positionals;
  if (id === undefined) {
    process.stderr.write('weft automations rm: name the automation (weft automations list)\n');
    return 2;
  }
  await removeAutomation(home(), id);
  process.stdout.write(`Removed ${id} (the threads and worktrees of its runs are kept).\n`);
  return 0;
}

async function runs(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' } },
  });
  const [id] = positionals;
  if (id === undefined) {
    process.stderr.write('weft automations runs: name the automation (weft automations list)\n');
    return 2;
  }
  await usableAutomation(home(), id);
  const history = await readRuns(home(), id);
  if (values.json === true) process.stdout.write(`${JSON.stringify(history)}\n`);
  else if (history.length === 0) process.stdout.write(`${id} has not run yet.\n`);
  else for (const run of history) process.stdout.write(`${describeRun(run)}\n`);
  return 0;
}

/** The app host and an in-process client of it, for the length of `work`. */
async function withExecutor<T>(work: (ctx: Parameters<typeof runAutomation>[0]) => Promise<T>): Promise<T> {
  const [{ createAppHost }, { connectHostClient }, { hostClientExecutor }, { openEnvironment }] = await Promise.all([
    import('../server/app-host'),
    import('../faces/host-client'),
    import('../faces/automation-executor'),
    import('./automation-host'),
  ]);
  const weftHome = home();
  const app = await createAppHost({ weftHome, log: (line) => process.stderr.write(`${line}\n`) });
  try {
    const client = await connectHostClient(app.host, {
      label: 'weft automations',
      clientInfo: { name: 'weft-automations', title: 'weft automations', version: VERSION },
    });
    try {
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      return await work({
        weftHome,
        now: () => Date.now(),
        executor: hostClientExecutor(client, { openEnvironment, log }),
      });
    } finally {
      client.close();
    }
  } finally {
    await app.close();
  }
}

function report(id: string, outcome: RunOutcome): string {
  switch (outcome.type) {
    case 'ran':
      return `${id}: ${outcome.status}${outcome.reason === null ? '' : ` (${outcome.reason})`}`;
    case 'busy':
      return `${id}: not started, a run of it is under way`;
    case 'notDue':
      return `${id}: not started, its run was already made`;
  }
}

async function runNow(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const [id] = positionals;
  if (id === undefined) {
    process.stderr.write('weft automations run: name the automation (weft automations list)\n');
    return 2;
  }
  const automation = await usableAutomation(home(), id);
  const outcome = await withExecutor((ctx) => runAutomation(ctx, automation, { type: 'manual' }));
  process.stdout.write(`${report(id, outcome)}\n`);
  return outcome.type === 'ran' && outcome.status === 'completed' ? 0 : 1;
}

async function due(): Promise<number> {
  const results = await withExecutor((ctx) => runDueAutomations(ctx, (line) => process.stderr.write(`${line}\n`)));
  for (const { id, outcome } of results) process.stdout.write(`${report(id, outcome)}\n`);
  return results.some((r) => r.outcome.type === 'ran' && r.outcome.status !== 'completed') ? 1 : 0;
}

async function installTimer(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { dir: { type: 'string' } } });
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    process.stderr.write(
      `weft automations install-timer: no timer for ${process.platform}; run weft automations due from your scheduler every minute\n`,
    );
    return 1;
  }
  const script = process.argv[1];
  const timer = timerFiles({
    platform: process.platform,
    command: script === undefined ? [process.execPath] : [process.execPath, resolve(script)],
    weftHome: home(),
    env: process.env,
    ...(values.dir === undefined ? {} : { dir: resolve(values.dir) }),
  });
  for (const file of await writeTimerFiles(timer)) process.stdout.write(`Wrote ${file}\n`);
  process.stdout.write(`Turn it on with: ${timer.enable}\n`);
  return 0;
}
