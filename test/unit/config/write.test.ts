import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import {
  ConfigError,
  configVersion,
  deleteConfigValue,
  loadConfig,
  setProjectTrust,
  writeConfigValue,
} from '../../../src-main/config';
import type { WriteConfigOptions } from '../../../src-main/config';
import { cloneDocument, deletePath, isTable, setPath } from '../../../src-main/config/document';
import { applySet, deleteInText, setInText } from '../../../src-main/config/toml-edit';
import type { MergeStrategy } from '../../../src-main/config/toml-edit';
import type { TomlDocument } from '../../../src-main/config/document';
import { tempTree } from './helpers';
import type { TempTree } from './helpers';

const CONFIG = `# Weft configuration
model = "gpt-5" # the default model
approval_policy = "on-request"

# Sandbox settings
[sandbox_workspace_write]
writable_roots = [
  "/srv/data", # shared data
]
network_access = false

[shell_environment_policy]
set = { CI = "1", "X Y" = "z" }

[model_providers.proxy]
name = "Proxy"
base_url = "https://proxy.example/v1"

# Trusted projects
[projects."/home/me/my app"]
  trust_level = "trusted"

[[tui.themes]]
name = "dark"

[[tui.themes]]
name = "light"
`;

let tree: TempTree;
let file: string;

beforeEach(async () => {
  tree = await tempTree();
  file = await tree.write('home/config.toml', CONFIG);
});

afterEach(async () => {
  await tree.dispose();
});

const text = (): Promise<string> => readFile(file, 'utf8');

/** Writes, then checks the exact new text and that it parses to the old document with the one change. */
async function expectWrite(
  keyPath: string,
  path: string[],
  value: unknown,
  expected: string,
  opts?: WriteConfigOptions,
): Promise<void> {
  const before = await text();
  const result = await writeConfigValue(file, keyPath, value, opts);
  const after = await text();
  expect(after).toBe(expected);
  const intended: TomlDocument = parse(before);
  setPath(intended, path, value);
  expect(parse(after)).toEqual(intended);
  expect(result).toMatchObject({ status: 'ok', version: configVersion(after), filePath: file, changed: true });
}

async function writeError(write: Promise<unknown>): Promise<ConfigError> {
  const error: unknown = await write.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('writeConfigValue', () => {
  it('replaces an existing value, keeping the comment after it and every other byte', async () => {
    await expectWrite('model', ['model'], 'o3', CONFIG.replace('model = "gpt-5" #', 'model = "o3" #'));
  });

  it('replaces a multi-line array and a quoted-key value in place', async () => {
    await expectWrite(
      'sandbox_workspace_write.writable_roots',
      ['sandbox_workspace_write', 'writable_roots'],
      ['/a', '/b c'],
      CONFIG.replace('writable_roots = [\n  "/srv/data", # shared data\n]', 'writable_roots = ["/a", "/b c"]'),
    );
    await writeFile(file, CONFIG);
    await expectWrite(
      'projects."/home/me/my app".trust_level',
      ['projects', '/home/me/my app', 'trust_level'],
      'untrusted',
      CONFIG.replace('  trust_level = "trusted"', '  trust_level = "untrusted"'),
    );
  });

  it('adds a key at the end of its table', async () => {
    await expectWrite(
      'sandbox_workspace_write.exclude_slash_tmp',
      ['sandbox_workspace_write', 'exclude_slash_tmp'],
      true,
      CONFIG.replace('network_access = false\n', 'network_access = false\nexclude_slash_tmp = true\n'),
    );
  });

  it('adds a key inside an inline table', async () => {
    await expectWrite(
      'shell_environment_policy.set.NEW',
      ['shell_environment_policy', 'set', 'NEW'],
      'v',
      CONFIG.replace('set = { CI = "1", "X Y" = "z" }', 'set = { CI = "1", "X Y" = "z", NEW = "v" }'),
    );
  });

  it('adds a top-level key before the first table', async () => {
    await expectWrite(
      'web_search',
      ['web_search'],
      'live',
      CONFIG.replace('approval_policy = "on-request"\n', 'approval_policy = "on-request"\nweb_search = "live"\n'),
    );
    await writeFile(file, '# header comment\n\n[tui]\nx = 1\n');
    await expectWrite('model', ['model'], 'm', '# header comment\n\nmodel = "m"\n\n[tui]\nx = 1\n');
  });

  it('adds a new table next to its siblings, indented like them', async () => {
    await expectWrite(
      'model_providers.local.base_url',
      ['model_providers', 'local', 'base_url'],
      'http://localhost:8080/v1',
      CONFIG.replace(
        'base_url = "https://proxy.example/v1"\n',
        'base_url = "https://proxy.example/v1"\n\n[model_providers.local]\nbase_url = "http://localhost:8080/v1"\n',
      ),
    );
    await writeFile(file, CONFIG);
    const result = await setProjectTrust(join(tree.dir, 'home'), '/home/you/b', 'trusted');
    expect(result.status).toBe('ok');
    expect(await text()).toBe(
      CONFIG.replace(
        '  trust_level = "trusted"\n',
        '  trust_level = "trusted"\n\n[projects."/home/you/b"]\n  trust_level = "trusted"\n  trusted_files = {}\n',
      ),
    );
  });

  it('adds a new nested table at the end of the file', async () => {
    await expectWrite('history.a.b.c', ['history', 'a', 'b', 'c'], 1, `${CONFIG}\n[history.a.b]\nc = 1\n`);
  });

  it('writes values of every type as TOML', async () => {
    const values: Record<string, unknown> = {
      text: 'quote " backslash \\ newline \n tab \t é \u0001 \u007f',
      empty: '',
      integer: 42,
      negative: -7,
      float: 1.5,
      tiny: 1e-7,
      yes: true,
      no: false,
      list: ['a', 'b'],
      nothing: [],
      nested: [[1, 2], ['x']],
      table: { 'odd key': 1, plain: { deep: [true] }, empty: {} },
      rows: [{ a: 1 }, { b: 'two' }],
    };
    for (const [key, value] of Object.entries(values)) {
      const before = await text();
      await writeConfigValue(file, `tui.${key}`, value);
      const intended: TomlDocument = parse(before);
      setPath(intended, ['tui', key], value);
      expect(parse(await text())).toEqual(intended);
    }
    const written = await text();
    expect(written).toContain('text = "quote \\" backslash \\\\ newline \\n tab \\t é \\u0001 \\u007F"\n');
    expect(written).toContain('table = { "odd key" = 1, plain = { deep = [true] }, empty = {} }\n');
    expect(written).toContain('rows = [{ a = 1 }, { b = "two" }]\n');
    // The arrays of tables above are untouched.
    expect(written).toContain('[[tui.themes]]\nname = "dark"\n\n[[tui.themes]]\nname = "light"\n');
  });

  it('replaces a table key by key (keeping its comments), or merges into it with upsert', async () => {
    await writeConfigValue(
      file,
      'sandbox_workspace_write',
      { network_access: true, exclude_slash_tmp: true },
      { mergeStrategy: 'upsert' },
    );
    expect(await text()).toBe(
      CONFIG.replace('network_access = false\n', 'network_access = true\nexclude_slash_tmp = true\n'),
    );
    await writeConfigValue(file, 'sandbox_workspace_write', { network_access: false });
    expect(await text()).toBe(CONFIG.replace('writable_roots = [\n  "/srv/data", # shared data\n]\n', ''));
  });

  it('creates WEFT_HOME and the file, private, when missing', async () => {
    const fresh = join(tree.dir, 'new-home', 'config.toml');
    const result = await writeConfigValue(fresh, 'projects."/p q".trust_level', 'trusted');
    expect(await readFile(fresh, 'utf8')).toBe('[projects."/p q"]\ntrust_level = "trusted"\n');
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    expect(result.version).toBe(configVersion('[projects."/p q"]\ntrust_level = "trusted"\n'));
  });

  it('keeps the file mode and leaves no temp file behind', async () => {
    await chmod(file, 0o640);
    await writeConfigValue(file, 'model', 'o3');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readdir(join(tree.dir, 'home'))).toEqual(['config.toml']);
  });

  it('keeps CRLF line endings and a byte-order mark', async () => {
    await writeFile(file, '\uFEFFmodel = "a"\r\n[tui]\r\nx = 1\r\n');
    await writeConfigValue(file, 'tui.y', 2);
    expect(await text()).toBe('\uFEFFmodel = "a"\r\n[tui]\r\nx = 1\r\ny = 2\r\n');
  });

  it('refuses a write when the file changed since expectedVersion, leaving it untouched', async () => {
    const first = await writeConfigValue(file, 'model', 'a', { expectedVersion: configVersion(CONFIG) });
    const second = await writeConfigValue(file, 'model', 'b', { expectedVersion: first.version });
    const error = await writeError(writeConfigValue(file, 'model', 'c', { expectedVersion: first.version }));
    expect(error.message).toBe(`${file}: config.toml changed since it was read; reload and try again`);
    expect(await text()).toBe(CONFIG.replace('"gpt-5"', '"b"'));
    expect(second.version).toBe(configVersion(await text()));
  });

  it('refuses a value that would make the file invalid, or that TOML cannot hold', async () => {
    const error = await writeError(writeConfigValue(file, 'approval_policy', 'sometimes'));
    expect(error.message).toBe(
      `${file}:3:1: \`approval_policy\` must be one of untrusted, on-failure, on-request, never (got "sometimes")\n${file} was not changed.`,
    );
    expect([error.line, error.column]).toEqual([3, 1]);
    expect((await writeError(writeConfigValue(file, 'tui.list', [1, null]))).message).toBe(
      `${file}: \`tui.list\` was not written: TOML has no null: null cannot be written; leave the key out instead`,
    );
    expect((await writeError(writeConfigValue(file, 'a..b', 1))).message).toMatch(/^"a\.\.b" is not a key path/);
    expect(await text()).toBe(CONFIG);
  });

  it('refuses to edit a file with a TOML syntax error', async () => {
    await writeFile(file, 'model = = "x"\n');
    expect((await writeError(writeConfigValue(file, 'model', 'y'))).message).toBe(
      `${file}:1:9: TOML syntax error: invalid value`,
    );
    expect(await text()).toBe('model = = "x"\n');
  });

  it('reports okOverridden when a higher layer still sets the key', async () => {
    const home = join(tree.dir, 'home');
    const check = { weftHome: home, cwd: tree.dir, overrides: ['model=flag'] };
    const result = await writeConfigValue(file, 'model', 'o3', { check });
    expect(result.status).toBe('okOverridden');
    expect(result.overriddenMetadata).toEqual({
      message: `\`model\` was written to ${file}, but -c model sets it too and wins`,
      origin: '-c model',
    });
    expect((await writeConfigValue(file, 'approval_policy', 'never', { check })).status).toBe('ok');
    expect((await loadConfig(check)).config.approval_policy).toBe('never');
  });
});

describe('deleteConfigValue', () => {
  it('removes a key line, a table with its comments, or nothing', async () => {
    await deleteConfigValue(file, 'approval_policy');
    expect(await text()).toBe(CONFIG.replace('approval_policy = "on-request"\n', ''));
    await deleteConfigValue(file, 'sandbox_workspace_write');
    expect(await text()).toBe(
      CONFIG.replace('approval_policy = "on-request"\n', '').replace(
        '# Sandbox settings\n[sandbox_workspace_write]\nwritable_roots = [\n  "/srv/data", # shared data\n]\nnetwork_access = false\n\n',
        '',
      ),
    );
    const before = await text();
    const result = await deleteConfigValue(file, 'no.such.key');
    expect(result).toMatchObject({ status: 'ok', changed: false, version: configVersion(before) });
    await deleteConfigValue(file, 'shell_environment_policy.set.CI');
    expect(await text()).toBe(before.replace('set = { CI = "1", "X Y" = "z" }', 'set = { "X Y" = "z" }'));
  });

  it('trims the end of the file when the last table goes', async () => {
    await deleteConfigValue(file, 'tui');
    expect(await text()).toBe(CONFIG.slice(0, CONFIG.indexOf('\n[[tui.themes]]')));
  });
});

/** Dotted keys, inline tables, arrays of tables with sub-tables, a multi-line string that looks like TOML, CRLF. */
const SOURCE = [
  '# top',
  'a = 1',
  'b.c = 2 # dotted',
  'b.d.e = "s"',
  '[t]',
  'x = [1,',
  '  2] # multi-line',
  'y = { p = 1, q = { r = 2 } }',
  '# about u',
  '[t.u]',
  'z = true',
  '[[arr]]',
  'k = 1',
  '[[arr]]',
  'k = 2',
  '[arr.sub]',
  'm = 1',
  '[v."quoted key"]',
  "w = 'lit'",
  '[b.d.f]',
  'g = 1',
  '[ml]',
  's = """',
  '# not a comment',
  '[not.a.table]',
  '"""',
  '  [ml.inner] # header comment',
  '  deep = 1',
  '',
].join('\r\n');

const KEYS = [
  'a',
  'b',
  'c',
  'd',
  'e',
  't',
  'x',
  'y',
  'p',
  'q',
  'u',
  'z',
  'arr',
  'k',
  'sub',
  'v',
  'quoted key',
  'f',
  'g',
  'ml',
  's',
  'inner',
  'new',
];
const VALUES: unknown[] = [1, 'str', true, [1, 2], { n: 1 }, {}, { p: { deep: 'x' } }, [], [{ a: 1 }]];

/** Empty tables count as absent: dotted keys and removed sections leave none behind. */
function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruned);
  if (!isTable(value)) return value instanceof Date ? value.toISOString() : value;
  const entries = Object.entries(value)
    .map(([key, item]) => [key, pruned(item)] as const)
    .filter(([, item]) => !(isTable(item) && Object.keys(item).length === 0))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return Object.fromEntries(entries);
}

describe('setInText / deleteInText', () => {
  it('turn random edits of a tricky document into exactly the intended documents', () => {
    let seed = 7;
    const pick = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    let changed = 0;
    for (let run = 0; run < 80; run++) {
      let text = SOURCE;
      for (let step = 0; step < 6; step++) {
        const path = Array.from({ length: 1 + pick(3) }, () => KEYS[pick(KEYS.length)] ?? 'a');
        const value = VALUES[pick(VALUES.length)];
        const strategy: MergeStrategy = pick(3) === 0 ? 'upsert' : 'replace';
        const intended = cloneDocument(parse(text));
        let edited: string;
        if (pick(4) === 0) {
          deletePath(intended, path);
          edited = deleteInText(text, path);
        } else {
          applySet(intended, path, value, strategy);
          edited = setInText(text, path, value, strategy);
        }
        const [got, want] = [pruned(parse(edited)), pruned(intended)];
        // expect() only on a mismatch: it is slow enough to matter at this many steps.
        if (JSON.stringify(got) !== JSON.stringify(want) || edited.replace(/\r\n/g, '').includes('\n')) {
          expect({ edited, got }, JSON.stringify({ path, value, strategy, text })).toEqual({
            edited: edited.replace(/\r?\n/g, '\r\n'),
            got: want,
          });
        }
        if (edited !== text) changed++;
        text = edited;
      }
    }
    expect(changed).toBeGreaterThan(300);
  });
});
