import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { locateBrowser } from '../../../src-main/browser/locate';
import { runDoctorCommand } from '../../../src-main/cli/doctor';
import { runRulesCommand } from '../../../src-main/cli/rules';
import { runSandboxCommand } from '../../../src-main/cli/sandbox';
import { commandEnvPolicy } from '../../../src-main/safety/command-env';
import { envFilterLayer, sandboxStatus } from '../../../src-main/safety/sandbox/doctor';
import { makeWeftHome } from '../../support/workspace';
import type { WeftHome } from '../../support/workspace';

let home: WeftHome;
let savedHome: string | undefined;
let stdout: string;
let stderr: string;

beforeEach(async () => {
  home = await makeWeftHome();
  savedHome = process.env['WEFT_HOME'];
  process.env['WEFT_HOME'] = home.dir;
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
});

afterEach(async () => {
  vi.restoreAllMocks();
  if (savedHome === undefined) delete process.env['WEFT_HOME'];
  else process.env['WEFT_HOME'] = savedHome;
  await home.cleanup();
});

describe('weft rules', () => {
  it('add, list, revoke', async () => {
    expect(await runRulesCommand(['list'])).toBe(0);
    expect(stdout).toBe(`No rules in ${join(home.dir, 'rules')}.\n`);

    expect(
      await runRulesCommand([
        'add',
        '--decision',
        'forbidden',
        '--justification',
        'shared history',
        '--',
        'git',
        'push',
        '--force',
      ]),
    ).toBe(0);
    const id = /Added (r-[0-9a-f]{8}) /.exec(stdout)?.[1];
    expect(id).toBeDefined();
    expect(await runRulesCommand(['add', '--decision', 'allow', '--', 'npm', 'run', 'test:unit'])).toBe(0);

    stdout = '';
    expect(await runRulesCommand(['list'])).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+DECISION\s+PATTERN\s+FILE$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${id}\\s+forbidden\\s+git push --force\\s+${join(home.dir, 'rules', 'default.toml')}:\\d+$`),
    );
    expect(lines[2]).toMatch(/^r-[0-9a-f]{8}\s+allow\s+npm run test:unit\s+/);
    expect(lines[3]).toBe(`  ${id}: shared history`);

    stdout = '';
    expect(await runRulesCommand(['revoke', id ?? ''])).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Revoked ${id} \\(forbidden: git push --force\\)`));
    stdout = '';
    expect(await runRulesCommand(['list', '--json'])).toBe(0);
    expect(JSON.parse(stdout)).toEqual([
      expect.objectContaining({ pattern: ['npm', 'run', 'test:unit'], decision: 'allow' }),
    ]);
  });

  it('explains mistakes', async () => {
    expect(await runRulesCommand(['revoke', 'r-missing'])).toBe(1);
    expect(stderr).toContain('no rule has the id "r-missing"');
    expect(await runRulesCommand(['add', '--decision', 'sometimes', '--', 'ls'])).toBe(2);
    expect(stderr).toContain('--decision must be one of allow, prompt, forbidden');
    expect(await runRulesCommand(['add', '--decision', 'allow'])).toBe(2);
    expect(await runRulesCommand(['frobnicate'])).toBe(2);
    expect(stderr).toContain('unknown sub-command "frobnicate"');
  });

  it('lists despite a corrupt file, warning with file and line', async () => {
    await mkdir(join(home.dir, 'rules'));
    await writeFile(join(home.dir, 'rules', 'bad.toml'), '[[rule]]\npattern = ["ok"]\n\n[[rule]]\npattern = [\n');
    expect(await runRulesCommand(['list'])).toBe(0);
    expect(stderr).toMatch(new RegExp(`weft: warning: ${join(home.dir, 'rules', 'bad.toml')}:\\d+: `));
    expect(stdout).toContain(' ok ');
  });
});

describe('weft doctor', () => {
  it('reports the sandbox status and every containment layer; exit 0 only when all work', async () => {
    const status = await sandboxStatus();
    const code = await runDoctorCommand([]);
    expect(status.layers.map((l) => l.name)).toEqual(['filesystem', 'network', 'unix sockets', 'environment filter']);
    // This home's provider (OpenAI) has no key here: a turn could not run, whatever the sandbox says.
    expect(code).toBe(1);
    expect(stdout.split('\n')).toContain(
      `Sandbox (${status.platform}, ${status.mechanism}): ${status.available ? 'OK' : 'NOT AVAILABLE'}`,
    );
    for (const layer of status.layers)
      expect(stdout).toContain(`  ${layer.name}: ${layer.ok ? 'OK' : 'MISSING'} — ${layer.detail}\n`);
    if (!status.available) expect(stdout).toContain(`Fix: ${status.fix ?? ''}`);
    // The browser is reported beside the sandbox (no effect on the exit status): the one this machine has.
    const browser = await locateBrowser(undefined);
    expect(stdout).toContain(
      browser.found
        ? `Browser (the agent's \`browser\` tools): OK — ${browser.path}\n`
        : `Browser (the agent's \`browser\` tools): NOT FOUND — ${browser.reason}.`,
    );
    stdout = '';
    expect(await runDoctorCommand(['--json'])).toBe(code);
    expect(JSON.parse(stdout)).toEqual({
      ...status,
      model: expect.objectContaining({ provider: 'openai', ready: false }),
      browser,
    });
  });
});

describe('the environment filter layer', () => {
  it('is missing when the default excludes are turned off, with the key that did it', () => {
    expect(envFilterLayer(commandEnvPolicy({ ignore_default_excludes: true }))).toEqual({
      name: 'environment filter',
      ok: false,
      detail: 'shell_environment_policy.ignore_default_excludes = true: secret-looking variables reach commands',
    });
    expect(envFilterLayer(commandEnvPolicy({ exclude: ['AWS_*'] }))).toMatchObject({
      ok: true,
      detail: expect.stringContaining('and 1 of shell_environment_policy.exclude'),
    });
  });
});

describe('weft sandbox usage errors', () => {
  it('needs a command and a known mode', async () => {
    expect(await runSandboxCommand([])).toBe(2);
    expect(stderr).toContain('no command given');
    expect(await runSandboxCommand(['--mode', 'sideways', '--', 'true'])).toBe(2);
    expect(stderr).toContain('--mode must be one of read-only, workspace-write, danger-full-access (got "sideways")');
    expect(await runSandboxCommand(['--help'])).toBe(0);
    expect(stdout).toContain('Usage: weft sandbox');
  });
});
