import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { runConfigCommand } from '../../../src-main/cli/config';
import { tempTree } from './helpers';
import type { TempTree } from './helpers';

let tree: TempTree;
let home: string;
let userFile: string;
let project: string;

const USER_CONFIG = [
  '# mine',
  'approval_policy = "never"',
  'profile = "fast"',
  '',
  '[profiles.fast]',
  'model_reasoning_effort = "low"',
  '',
  '[model_providers.proxy]',
  'base_url = "https://proxy.example/v1"',
  'experimental_bearer_token = "sk-secret"',
  '',
].join('\n');

beforeEach(async () => {
  tree = await tempTree();
  home = await tree.mkdir('home');
  userFile = await tree.write('home/config.toml', USER_CONFIG);
  project = await tree.mkdir('proj');
  await tree.write('proj/.git/HEAD', 'ref: refs/heads/main\n');
  await tree.write('proj/.weft/config.toml', 'sandbox_mode = "read-only"\n');
});

afterEach(async () => {
  await tree.dispose();
});

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runConfigCommand(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { WEFT_HOME: home, HOME: tree.dir },
    cwd: project,
  });
  return { code, stdout, stderr };
}

/** The `# origin` of the line for `key` in `weft config` output. */
function originOf(stdout: string, key: string): string | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(`${key} = `));
  return line?.split('  # ')[1];
}

describe('weft config show', () => {
  it('prints every effective key with its value and origin, secrets redacted', async () => {
    const { code, stdout, stderr } = await run('-c', 'model=flag');
    expect(code).toBe(0);
    expect(originOf(stdout, 'model')).toBe('-c model');
    expect(originOf(stdout, 'approval_policy')).toBe(`${userFile}:2`);
    expect(originOf(stdout, 'model_reasoning_effort')).toBe('profile fast');
    expect(originOf(stdout, 'sandbox_mode')).toBe('default');
    expect(originOf(stdout, 'model_providers.proxy.request_max_retries')).toBe('default');
    expect(stdout).toMatch(/^model = "flag" +# -c model$/m);
    expect(stdout).toMatch(/^model_providers\.proxy\.experimental_bearer_token = "<redacted>" +# /m);
    expect(stdout).not.toContain('sk-secret');
    // The project has not been trusted: its file is skipped, with the way to apply it.
    expect(stderr).toBe(
      `weft: note: the project ${project} has not been trusted yet, so ${join(project, '.weft/config.toml')} was not applied; run \`weft config trust ${project}\` to apply it\n`,
    );
  });

  it('takes --profile and --cd, and prints JSON with --json', async () => {
    await tree.write('home/config.toml', `${USER_CONFIG}[profiles.slow]\nmodel_reasoning_effort = "high"\n`);
    const { code, stdout } = await run('show', '--json', '--profile', 'slow', '--cd', tree.dir);
    expect(code).toBe(0);
    const output = z
      .object({
        config: z.record(z.string(), z.unknown()),
        origins: z.record(z.string(), z.string()),
        layers: z.array(z.object({ source: z.string() })),
        projectTrust: z.object({
          root: z.string(),
          trusted: z.boolean().nullable(),
          skippedFiles: z.array(z.string()),
        }),
      })
      .parse(JSON.parse(stdout));
    expect(output.config['model_reasoning_effort']).toBe('high');
    expect(output.origins['model_reasoning_effort']).toBe('profile slow');
    expect(output.origins['profile']).toBe('-c profile');
    expect(output.layers.map((l) => l.source)).toEqual(['default', 'user', 'profile', 'override']);
    expect(output.projectTrust).toEqual({ root: tree.dir, trusted: null, skippedFiles: [] });
    expect(stdout).not.toContain('sk-secret');
  });

  it('fails with the config error, and 2 on bad usage', async () => {
    expect(await run('-c', 'approval_policy=sometimes')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'weft config: -c approval_policy: `approval_policy` must be one of untrusted, on-failure, on-request, never (got "sometimes")\n',
    });
    expect((await run('--bogus')).code).toBe(2);
    const unknown = await run('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^weft config: unknown sub-command "frobnicate"\n\nUsage: weft config/);
    expect((await run('--help')).stdout).toMatch(/^Usage: weft config/);
  });
});

describe('weft config get', () => {
  it('prints one value, a table as lines, or JSON', async () => {
    expect(await run('get', 'approval_policy')).toEqual({ code: 0, stdout: 'never\n', stderr: expect.any(String) });
    expect((await run('get', 'project_doc_max_bytes')).stdout).toBe('32768\n');
    expect((await run('get', 'model_providers.proxy.base_url', '--json')).stdout).toBe('"https://proxy.example/v1"\n');
    const table = (await run('get', 'model_providers.proxy')).stdout.split('\n');
    expect(table[0]).toMatch(new RegExp(`^base_url = "https://proxy.example/v1" +# ${userFile}:9$`));
    expect(table).toContainEqual(expect.stringMatching(/^experimental_bearer_token = "<redacted>" +# /));
  });

  it('tells an unknown key (with a suggestion) from a known key that is not set', async () => {
    expect(await run('get', 'aproval_policy')).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining(
        'weft config: unknown key `aproval_policy` (did you mean `approval_policy`?)\n',
      ) as string,
    });
    expect((await run('get', 'nosuch')).stderr).toContain('weft config: unknown key `nosuch`\n');
    expect((await run('get', 'model_providers.proxy.base_ur')).stderr).toContain(
      'weft config: unknown key `model_providers.proxy.base_ur` (did you mean `model_providers.proxy.base_url`?)\n',
    );
    const unset = await run('get', 'developer_instructions');
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('weft config: `developer_instructions` is not set; the built-in default applies\n');
    expect((await run('get')).code).toBe(2);
  });
});

describe('weft config set / unset', () => {
  it('writes the user config, reading VALUE as TOML or else as a string', async () => {
    expect(await run('set', 'model', 'gpt-5')).toEqual({
      code: 0,
      stdout: `Set model = "gpt-5" in ${userFile}\n`,
      stderr: '',
    });
    expect((await run('set', 'sandbox_workspace_write.network_access', 'true')).code).toBe(0);
    expect((await run('set', 'sandbox_workspace_write.writable_roots', '["/a", "/b"]')).code).toBe(0);
    expect(await readFile(userFile, 'utf8')).toBe(
      USER_CONFIG.replace('profile = "fast"\n', 'profile = "fast"\nmodel = "gpt-5"\n') +
        '\n[sandbox_workspace_write]\nnetwork_access = true\nwritable_roots = ["/a", "/b"]\n',
    );
    expect((await run('get', 'sandbox_workspace_write.writable_roots', '--json')).stdout).toBe('["/a","/b"]\n');
  });

  it('refuses unknown keys and bad values without touching the file', async () => {
    expect(await run('set', 'modle', 'x')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'weft config: not written: unknown key `modle` (did you mean `model`?)\n',
    });
    const bad = await run('set', 'approval_policy', 'on-reqest');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'weft config: not written: `approval_policy` must be one of untrusted, on-failure, on-request, never (got "on-reqest"); did you mean "on-request"?\n',
    );
    expect((await run('set', 'model')).code).toBe(2);
    expect(await readFile(userFile, 'utf8')).toBe(USER_CONFIG);
  });

  it('notes when a flag still overrides what was written', async () => {
    const { code, stderr } = await run('set', 'approval_policy', 'untrusted', '-c', 'approval_policy="never"');
    expect(code).toBe(0);
    expect(stderr).toBe(
      `weft: note: \`approval_policy\` was written to ${userFile}, but -c approval_policy sets it too and wins\n`,
    );
  });

  it('removes a key', async () => {
    expect((await run('unset', 'approval_policy')).stdout).toBe(`Removed approval_policy from ${userFile}\n`);
    expect((await run('unset', 'approval_policy')).stdout).toBe(
      `approval_policy is not set in ${userFile}; nothing changed\n`,
    );
    expect(await readFile(userFile, 'utf8')).toBe(USER_CONFIG.replace('approval_policy = "never"\n', ''));
  });
});

describe('weft config trust / untrust', () => {
  it('records trust for the project root and applies its files from then on', async () => {
    const inner = await tree.mkdir('proj/src/lib');
    const trusted = await run('trust', inner);
    const projectFile = join(project, '.weft/config.toml');
    const hash = `sha256:${createHash('sha256').update('sandbox_mode = "read-only"\n').digest('hex')}`;
    expect(trusted).toEqual({
      code: 0,
      stdout:
        `Trusted ${project}: its .weft/config.toml files from the root down to ${inner} apply as they are now (recorded in ${userFile})\n` +
        `  ${projectFile} (new), which sets:\n    sandbox_mode = "read-only"\n`,
      stderr: '',
    });
    expect(await readFile(userFile, 'utf8')).toBe(
      `${USER_CONFIG}\n[projects."${project}"]\ntrust_level = "trusted"\ntrusted_files = { ".weft/config.toml" = "${hash}" }\n`,
    );
    const shown = await run();
    expect(originOf(shown.stdout, 'sandbox_mode')).toBe(`${projectFile}:1`);
    expect(shown.stderr).toBe('');

    expect((await run('untrust')).stdout).toBe(
      `Untrusted ${project}: its .weft/config.toml files are ignored (recorded in ${userFile})\n`,
    );
    expect(await readFile(userFile, 'utf8')).toBe(
      `${USER_CONFIG}\n[projects."${project}"]\ntrust_level = "untrusted"\n`,
    );
    const after = await run();
    expect(originOf(after.stdout, 'sandbox_mode')).toBe('default');
    expect(after.stderr).toContain(`the project ${project} is not trusted, so`);
  });

  it('rejects a folder that does not exist', async () => {
    const { code, stderr } = await run('trust', 'nowhere');
    expect(code).toBe(1);
    expect(stderr).toBe(
      `weft config: ${join(project, 'nowhere')} is not a folder; give the project's folder (or one inside it)\n`,
    );
  });
});
