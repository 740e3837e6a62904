import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RuleStore, rulesDir } from '../../../src-main/safety/approvals/rules';
import { makeWeftHome } from '../../support/workspace';
import type { WeftHome } from '../../support/workspace';

let home: WeftHome;
let dir: string;

beforeEach(async () => {
  home = await makeWeftHome();
  dir = rulesDir(home.dir);
});

afterEach(async () => {
  await home.cleanup();
});

describe('RuleStore', () => {
  it('starts empty when the folder does not exist', async () => {
    const store = new RuleStore(dir);
    expect(await store.load()).toEqual([]);
    expect(store.list()).toEqual([]);
    expect(store.match(['ls'])).toBeNull();
  });

  it('round-trips added rules through default.toml and a fresh store', async () => {
    const store = new RuleStore(dir);
    await store.load();
    const added = await store.add({ pattern: ['npm', 'test'], decision: 'allow', justification: 'runs the tests' });
    expect(added).toEqual({
      id: expect.stringMatching(/^r-[0-9a-f]{8}$/),
      pattern: ['npm', 'test'],
      decision: 'allow',
      justification: 'runs the tests',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      sourceFile: join(dir, 'default.toml'),
      line: expect.any(Number),
    });
    await store.add({ pattern: ['git', 'push'], decision: 'forbidden' });

    const text = await readFile(join(dir, 'default.toml'), 'utf8');
    expect(text.startsWith('# Weft approval rules')).toBe(true);
    expect(text).toContain('pattern = [ "npm", "test" ]');

    const fresh = new RuleStore(dir);
    expect(await fresh.load()).toEqual([]);
    expect(fresh.list()).toEqual(store.list());
    expect(fresh.list().map((r) => [r.pattern, r.decision])).toEqual([
      [['npm', 'test'], 'allow'],
      [['git', 'push'], 'forbidden'],
    ]);
    // No temp files left behind by the atomic writes.
    expect(await readdir(dir)).toEqual(['default.toml']);
  });

  it('does not add the same rule twice', async () => {
    const store = new RuleStore(dir);
    const first = await store.add({ pattern: ['make'], decision: 'allow' });
    const second = await store.add({ pattern: ['make'], decision: 'allow' });
    expect(second.id).toBe(first.id);
    expect(store.list()).toHaveLength(1);
  });

  it('revokes a rule, keeping the others and the file header', async () => {
    const store = new RuleStore(dir);
    const a = await store.add({ pattern: ['a'], decision: 'allow' });
    const b = await store.add({ pattern: ['b'], decision: 'prompt' });
    const c = await store.add({ pattern: ['c'], decision: 'forbidden' });
    expect((await store.revoke(b.id))?.id).toBe(b.id);
    expect(store.list().map((r) => r.id)).toEqual([a.id, c.id]);
    const fresh = new RuleStore(dir);
    await fresh.load();
    expect(fresh.list().map((r) => r.id)).toEqual([a.id, c.id]);
    expect(await readFile(join(dir, 'default.toml'), 'utf8')).toMatch(/^# Weft approval rules/);
    expect(await store.revoke('r-nope')).toBeNull();
  });

  it('matches word prefixes, strictest decision first', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'mine.toml'),
      [
        '[[rule]]',
        'pattern = ["git"]',
        'decision = "allow"',
        '',
        '[[rule]]',
        'pattern = ["git", "push"]',
        'decision = "prompt"',
        '',
        '[[rule]]',
        'pattern = ["git", "push", "--force"]',
        'decision = "forbidden"',
        'justification = "never rewrite shared history"',
        '',
      ].join('\n'),
    );
    const store = new RuleStore(dir);
    expect(await store.load()).toEqual([]);
    expect(store.match(['git', 'status'])?.decision).toBe('allow');
    expect(store.match(['git', 'push', 'origin'])?.decision).toBe('prompt');
    expect(store.match(['git', 'push', '--force', 'origin'])).toMatchObject({
      decision: 'forbidden',
      justification: 'never rewrite shared history',
      line: 9,
    });
    expect(store.match(['gitk'])).toBeNull();
    expect(store.match(['ls', 'git'])).toBeNull();
    // A hand-written rule without an id gets a stable derived one.
    expect(store.list()[0]?.id).toMatch(/^h-[0-9a-f]{8}$/);
  });

  it('matches absolute program paths by basename, allow rules only in system folders', async () => {
    const store = new RuleStore(dir);
    await store.add({ pattern: ['git', 'status'], decision: 'allow' });
    await store.add({ pattern: ['curl'], decision: 'forbidden' });
    expect(store.match(['/usr/bin/git', 'status'])?.decision).toBe('allow');
    expect(store.match(['/tmp/evil/git', 'status'])).toBeNull();
    expect(store.match(['/opt/x/curl', 'example.com'])?.decision).toBe('forbidden');
  });

  it('warns about a corrupt rule with file and line, and keeps the other rules of the file', async () => {
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'broken.toml');
    await writeFile(
      file,
      [
        '# hand edited',
        '[[rule]]',
        'pattern = ["rm"]',
        'decision = "forbidden"',
        '',
        '[[rule]]',
        'pattern = ["oops"',
        'decision = "allow"',
        '',
        '[[rule]]',
        'pattern = []',
        '',
        '[[rule]]',
        'pattern = ["x"]',
        'decision = "maybe"',
        '',
        '[[rule]]',
        'pattern = ["ok"]',
        'colour = "blue"',
      ].join('\n'),
    );
    const store = new RuleStore(dir);
    const warnings = await store.load();
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(new RegExp(`^${file}:(7|8): .*ignored until the file is fixed$`));
    expect(warnings[1]).toBe(`${file}:10: rule ignored: \`pattern\` must name at least one word`);
    expect(warnings[2]).toBe(`${file}:13: rule ignored: \`decision\` must be "allow", "prompt" or "forbidden"`);
    expect(warnings[3]).toBe(`${file}:17: unknown key(s) \`colour\` ignored`);
    expect(store.list().map((r) => [r.pattern, r.decision])).toEqual([
      [['rm'], 'forbidden'],
      [['ok'], 'allow'],
    ]);
    expect(store.match(['rm', '-rf', 'x'])?.decision).toBe('forbidden');
  });

  it('reads every *.toml file and ignores other files', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'a.toml'), '[[rule]]\npattern = ["a"]\n');
    await writeFile(join(dir, 'b.toml'), '[[rule]]\npattern = ["b"]\ndecision = "prompt"\n');
    await writeFile(join(dir, 'notes.txt'), 'not rules');
    const store = new RuleStore(dir);
    await store.load();
    expect(store.list().map((r) => r.pattern[0])).toEqual(['a', 'b']);
  });

  it('refuses an empty pattern', async () => {
    const store = new RuleStore(dir);
    await expect(store.add({ pattern: [], decision: 'allow' })).rejects.toThrow(/at least one word/);
    await expect(store.add({ pattern: ['git', ''], decision: 'allow' })).rejects.toThrow(/no empty words/);
  });
});
