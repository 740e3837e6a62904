// `weft automations edit` through the real binary: it switches an automation to any trigger `add` knows
// (commit, file change, schedule, manual) in place, comments kept; options that do not go together are
// refused naming the problem, with the file left as it was. And remote environments: `--env NAME` is
// refused at add time, and a file naming one is refused at run time (run, due, list), saying why.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { runWeftCli, type WeftRun } from '../support/weft-cli';
import { makeWeftHome, type WeftHome } from '../support/workspace';

let repo: GitRepo;
let home: WeftHome;

beforeEach(async () => {
  repo = await makeGitRepo({ 'a.txt': 'a one\n' });
  home = await makeWeftHome();
});

afterEach(async () => {
  await repo.cleanup();
  await home.cleanup();
});

const weft = (...args: string[]): Promise<WeftRun> => runWeftCli(args, { cwd: repo.dir, weftHome: home.dir });
const file = (id: string): string => join(home.dir, 'automations', `${id}.toml`);

async function addManual(name: string): Promise<string> {
  const added = await weft('automations', 'add', '--name', name, '--project', repo.dir, '--manual', '--prompt', 'hi');
  expect(added).toMatchObject({ code: 0, stderr: '' });
  return /^Added ([a-z-]+):/.exec(added.stdout)?.[1] ?? '';
}

async function triggerOf(id: string): Promise<unknown> {
  const out = await weft('automations', 'list', '--json');
  expect(out.code).toBe(0);
  const rows = JSON.parse(out.stdout) as { id: string; trigger?: unknown; problem?: string }[];
  return rows.find((r) => r.id === id)?.trigger;
}

const refused = (stderr: string, code = 2): WeftRun => ({ code, stdout: '', stderr });

describe('weft automations edit', () => {
  it('switches to a commit, a file-change, a schedule and a manual trigger, keeping the comments', async () => {
    const id = await addManual('Switching');
    const comments = (await readFile(file(id), 'utf8')).split('\n').filter((l) => l.startsWith('# A Weft'));

    expect(await weft('automations', 'edit', id, '--on-commit', 'main')).toEqual({
      code: 0,
      stdout: `Changed ${id}: ${file(id)}\n`,
      stderr: '',
    });
    expect(await triggerOf(id)).toEqual({ type: 'commit', branch: 'main' });

    expect(await weft('automations', 'edit', id, '--on-change', 'src', '--debounce', '5')).toMatchObject({ code: 0 });
    expect(await triggerOf(id)).toEqual({ type: 'fileChange', path: 'src', debounce_seconds: 5 });
    // Already a file-change trigger: --debounce alone changes it; `.` is the whole project.
    expect(await weft('automations', 'edit', id, '--debounce', '30')).toMatchObject({ code: 0 });
    expect(await weft('automations', 'edit', id, '--on-change', '.')).toMatchObject({ code: 0 });
    expect(await triggerOf(id)).toEqual({ type: 'fileChange', debounce_seconds: 30 });

    expect(
      await weft('automations', 'edit', id, '--schedule', '0 9 * * 1-5', '--timezone', 'Europe/Paris'),
    ).toMatchObject({ code: 0 });
    expect(await triggerOf(id)).toEqual({ type: 'schedule', cron: '0 9 * * 1-5', timezone: 'Europe/Paris' });
    expect(await weft('automations', 'edit', id, '--on-commit', 'release')).toMatchObject({ code: 0 });
    expect(await triggerOf(id)).toEqual({ type: 'commit', branch: 'release' });
    expect(await weft('automations', 'edit', id, '--manual')).toMatchObject({ code: 0 });
    expect(await triggerOf(id)).toEqual({ type: 'manual' });
    expect((await readFile(file(id), 'utf8')).split('\n').filter((l) => l.startsWith('# A Weft'))).toEqual(comments);
  });

  it('refuses options that do not go together, naming the problem, and leaves the file as it was', async () => {
    const id = await addManual('Refusals');
    expect(await weft('automations', 'edit', id, '--on-commit', 'main')).toMatchObject({ code: 0 });
    const before = await readFile(file(id), 'utf8');

    expect(await weft('automations', 'edit', id, '--on-commit', 'main', '--on-change', 'src')).toEqual(
      refused(
        'weft automations edit: give one trigger, not --on-commit and --on-change (--schedule, --manual, --on-commit or --on-change)\n',
      ),
    );
    expect(await weft('automations', 'edit', id, '--debounce', '5')).toEqual(
      refused(
        'weft automations edit: --debounce goes with a file-change trigger (--on-change PATH); the trigger would be a commit trigger\n',
      ),
    );
    expect(await weft('automations', 'edit', id, '--timezone', 'UTC')).toEqual(
      refused(
        'weft automations edit: --timezone goes with a schedule (--schedule "CRON"); the trigger would be a commit trigger\n',
      ),
    );
    expect(await weft('automations', 'edit', id, '--on-change', 'src', '--debounce', 'soon')).toEqual(
      refused(
        'weft automations edit: --debounce soon: give whole seconds from 1 to 3600 (how long the files stay quiet before the run)\n',
      ),
    );
    expect(await weft('automations', 'edit', id, '--on-change', '../elsewhere')).toEqual(
      refused(
        `weft automations: not changed: ${file(id)}: trigger.path: give a folder inside the project, e.g. "src"\n`,
        1,
      ),
    );
    expect(await weft('automations', 'edit', id, '--on-commit', 'two words')).toEqual(
      refused(`weft automations: not changed: ${file(id)}: trigger.branch: give a branch name, e.g. "main"\n`, 1),
    );
    expect(await readFile(file(id), 'utf8')).toBe(before);
  });
});

describe('automations and remote environments', () => {
  it('refuses --env NAME naming no environment of config.toml, saying how to add one', async () => {
    const add = await weft(
      'automations',
      'add',
      '--name',
      'Remote',
      '--project',
      repo.dir,
      '--manual',
      '--prompt',
      'hi',
      '--env',
      'build-box',
    );
    const none =
      'no environment named "build-box" in config.toml (none is configured; add one with `weft environments add`)';
    expect(add).toEqual(refused(`weft automations add: --env build-box: ${none}\n`));
    expect(await weft('automations', 'list', '--json')).toMatchObject({ code: 0, stdout: '[]\n' });
    const id = await addManual('Local one');
    expect(await weft('automations', 'edit', id, '--env', 'build-box')).toEqual(
      refused(`weft automations edit: --env build-box: ${none}\n`),
    );
  });

  it('refuses to run a file whose `environment` names a remote environment, at run, due and list, saying to set `remote`', async () => {
    const id = await addManual('Edited by hand');
    const text = await readFile(file(id), 'utf8');
    await writeFile(file(id), text.replace(/^environment = .*$/m, 'environment = "build-box"'));
    const problem = `${file(id)}: environment: "build-box" is not how an automation runs: give "worktree" (the default) or "local"; to run it on the remote environment [environments.build-box], set remote = "build-box"`;

    expect(await weft('automations', 'run', id)).toEqual(refused(`weft automations: ${problem}\n`, 1));
    expect(await weft('automations', 'due')).toEqual({
      code: 0,
      stdout: '',
      stderr: `weft automations: skipped: ${problem}\n`,
    });
    expect(await weft('automations', 'list')).toEqual({
      code: 0,
      stdout: `${id}  CANNOT BE USED: ${problem}\n`,
      stderr: '',
    });
  });
});
