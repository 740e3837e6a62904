import { afterEach, describe, expect, it } from 'vitest';
import { discoverSkills, parseFrontMatter, renderSkillsSection } from '../../../src-main/context/skills';
import { makeTempWorkspace } from '../../support/workspace';
import type { TempWorkspace } from '../../support/workspace';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function workspace(files: Record<string, string>): Promise<TempWorkspace> {
  const ws = await makeTempWorkspace(files);
  cleanups.push(ws.cleanup);
  return ws;
}

const skill = (frontMatter: string, body = '# Steps\n1. Do it.\n'): string => `---\n${frontMatter}\n---\n${body}`;

/** What the `broken` skill below is told: a plain value holding ": " is a nested map, which YAML refuses there. */
const BROKEN =
  'line 3, column 14: the front matter is not valid YAML: Nested mappings are not allowed in compact mappings (put a value holding ": " in quotes)';

describe('discoverSkills', () => {
  it('finds skills from the project root down to the cwd and in the Weft home, warning about a malformed one', async () => {
    const ws = await workspace({
      'repo/.git/HEAD': '',
      'repo/.agents/skills/release/SKILL.md': skill('name: release\ndescription: Cut a release of this repo.'),
      'repo/.agents/skills/group/pdf/SKILL.md': skill(`name: "pdf"\ndescription: 'Fill PDF forms; it''s quick.'`),
      'repo/.agents/skills/broken/SKILL.md': skill('name: broken\ndescription: Use when: the user asks'),
      'repo/.agents/skills/nofm/SKILL.md': '# No front matter\n',
      'repo/.agents/skills/.hidden/SKILL.md': skill('name: hidden\ndescription: never found'),
      'repo/app/.agents/skills/app-only/SKILL.md': skill(
        'name: app-only\ndescription: >\n  Build the app\n  with Vite.\nmetadata:\n  short-description: App',
      ),
      'home/skills/global/SKILL.md': skill('name: global\ndescription: A skill for every project.'),
    });
    const result = await discoverSkills({ cwd: ws.path('repo/app'), weftHome: ws.path('home') });
    expect(result).toEqual({
      skills: [
        {
          name: 'release',
          description: 'Cut a release of this repo.',
          path: ws.path('repo/.agents/skills/release/SKILL.md'),
        },
        {
          name: 'pdf',
          description: "Fill PDF forms; it's quick.",
          path: ws.path('repo/.agents/skills/group/pdf/SKILL.md'),
        },
        {
          name: 'app-only',
          description: 'Build the app with Vite.',
          path: ws.path('repo/app/.agents/skills/app-only/SKILL.md'),
        },
        { name: 'global', description: 'A skill for every project.', path: ws.path('home/skills/global/SKILL.md') },
      ],
      warnings: [
        `skipped the skill in ${ws.path('repo/.agents/skills/broken/SKILL.md')}: ${BROKEN}`,
        `skipped the skill in ${ws.path('repo/.agents/skills/nofm/SKILL.md')}: it does not start with a \`---\` line opening the YAML front matter`,
      ],
      problems: [
        {
          path: ws.path('repo/.agents/skills/broken/SKILL.md'),
          message: BROKEN,
        },
        {
          path: ws.path('repo/.agents/skills/nofm/SKILL.md'),
          message: 'it does not start with a `---` line opening the YAML front matter',
        },
      ],
    });
  });

  it('rejects names over 64 and descriptions over 1024 characters, and missing fields', async () => {
    const ws = await workspace({
      '.git/HEAD': '',
      '.agents/skills/a/SKILL.md': skill(`name: ${'n'.repeat(65)}\ndescription: ok`),
      '.agents/skills/b/SKILL.md': skill(`name: b\ndescription: ${'d'.repeat(1025)}`),
      '.agents/skills/c/SKILL.md': skill('name: c'),
      '.agents/skills/d/SKILL.md': skill(`name: ${'n'.repeat(64)}\ndescription: ${'d'.repeat(1024)}`),
    });
    const result = await discoverSkills({ cwd: ws.dir, weftHome: ws.path('no-home') });
    expect(result.skills.map((s) => s.path)).toEqual([ws.path('.agents/skills/d/SKILL.md')]);
    expect(result.warnings).toEqual([
      `skipped the skill in ${ws.path('.agents/skills/a/SKILL.md')}: \`name\` is 65 characters long; the limit is 64`,
      `skipped the skill in ${ws.path('.agents/skills/b/SKILL.md')}: \`description\` is 1025 characters long; the limit is 1024`,
      `skipped the skill in ${ws.path('.agents/skills/c/SKILL.md')}: the front matter has no \`description\``,
    ]);
  });

  it('reads front matter written in any valid YAML: multi-line quoted values, folded and literal blocks, escapes, anchors', async () => {
    const ws = await workspace({
      '.git/HEAD': '',
      '.agents/skills/quoted/SKILL.md': skill(
        'name: quoted\ndescription: "Fill PDF forms\n  and check them\n  before sending."',
      ),
      '.agents/skills/single/SKILL.md': skill("name: 'single'\ndescription: 'It''s a form\n  filler.'"),
      '.agents/skills/folded/SKILL.md': skill(
        'name: folded\ndescription: >-\n  Build the app\n  with Vite.\n\n  Then test it.',
      ),
      '.agents/skills/escaped/SKILL.md': skill('name: "caf\\xe9"\ndescription: "Tab\\there, \\u00e9 and \\x41."'),
      '.agents/skills/anchored/SKILL.md': skill(
        'metadata:\n  short-description: &short Review a diff\nname: anchored\ndescription: *short',
      ),
      '.agents/skills/flow/SKILL.md': skill('{name: flow, description: "Written as a flow map."}'),
    });
    const result = await discoverSkills({ cwd: ws.dir, weftHome: ws.path('no-home') });
    expect(result).toEqual({
      skills: [
        { name: 'anchored', description: 'Review a diff', path: ws.path('.agents/skills/anchored/SKILL.md') },
        { name: 'café', description: 'Tab\there, é and A.', path: ws.path('.agents/skills/escaped/SKILL.md') },
        { name: 'flow', description: 'Written as a flow map.', path: ws.path('.agents/skills/flow/SKILL.md') },
        {
          name: 'folded',
          description: 'Build the app with Vite.\nThen test it.',
          path: ws.path('.agents/skills/folded/SKILL.md'),
        },
        {
          name: 'quoted',
          description: 'Fill PDF forms and check them before sending.',
          path: ws.path('.agents/skills/quoted/SKILL.md'),
        },
        { name: 'single', description: "It's a form filler.", path: ws.path('.agents/skills/single/SKILL.md') },
      ],
      warnings: [],
      problems: [],
    });
  });

  it('skips a SKILL.md whose front matter is not valid YAML or whose name or description is not text, naming the line', async () => {
    const ws = await workspace({
      '.git/HEAD': '',
      '.agents/skills/twice/SKILL.md': skill('name: twice\nname: again\ndescription: d'),
      '.agents/skills/unclosed/SKILL.md': skill('name: unclosed\ndescription: "never closed'),
      '.agents/skills/number/SKILL.md': skill('name: 42\ndescription: d'),
      '.agents/skills/list/SKILL.md': skill('name: list\ndescription:\n  - a\n  - b'),
      '.agents/skills/scalar/SKILL.md': skill('just some words'),
    });
    const result = await discoverSkills({ cwd: ws.dir, weftHome: ws.path('no-home') });
    const file = (name: string): string => ws.path(`.agents/skills/${name}/SKILL.md`);
    expect(result.skills).toEqual([]);
    expect(result.problems).toEqual([
      { path: file('list'), message: 'line 3: `description` must be text, not a list; write it as one string' },
      { path: file('number'), message: 'line 2: `name` must be text, not a number; put it in quotes' },
      { path: file('scalar'), message: 'the front matter must be `key: value` lines (a YAML map), not a single value' },
      { path: file('twice'), message: 'line 3, column 1: the front matter is not valid YAML: Map keys must be unique' },
      {
        path: file('unclosed'),
        message: 'line 3, column 27: the front matter is not valid YAML: Missing closing "quote',
      },
    ]);
    expect(result.warnings).toEqual(result.problems.map((p) => `skipped the skill in ${p.path}: ${p.message}`));
  });

  it('does not look deeper than 6 folder levels below a skills root', async () => {
    const ws = await workspace({
      '.git/HEAD': '',
      '.agents/skills/1/2/3/4/5/6/SKILL.md': skill('name: deep\ndescription: level 6'),
      '.agents/skills/1/2/3/4/5/6/7/SKILL.md': skill('name: too-deep\ndescription: level 7'),
    });
    const result = await discoverSkills({ cwd: ws.dir, weftHome: ws.path('no-home') });
    expect(result.skills.map((s) => s.name)).toEqual(['deep']);
  });
});

describe('parseFrontMatter', () => {
  it('reads quoted, plain and block scalars and nested maps, with the line of each key', async () => {
    const parsed = await parseFrontMatter(
      '---\n# comment\nname: "a \\"b\\""\nsummary: |\n  line 1\n  line 2\nmetadata:\n  short-description: x\nlicense: MIT # trailing comment\n---\nbody',
    );
    expect(parsed).toEqual({
      ok: true,
      fields: new Map<string, unknown>([
        ['name', { value: 'a "b"', line: 3 }],
        ['summary', { value: 'line 1\nline 2\n', line: 4 }],
        ['metadata', { value: { 'short-description': 'x' }, line: 7 }],
        ['license', { value: 'MIT', line: 9 }],
      ]),
    });
  });

  it('names the line of a problem', async () => {
    expect(await parseFrontMatter('---\nname: x\nname: y\n---\n')).toEqual({
      ok: false,
      problem: 'line 3, column 1: the front matter is not valid YAML: Map keys must be unique',
    });
    expect(await parseFrontMatter('---\nname x\n---\n')).toEqual({
      ok: false,
      problem: 'the front matter must be `key: value` lines (a YAML map), not a single value',
    });
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const name of 'bcdefghi')
      bomb.push(
        `${name}: &${name} [${Array(9)
          .fill(`*${String.fromCharCode(name.charCodeAt(0) - 1)}`)
          .join(', ')}]`,
      );
    expect(await parseFrontMatter(`---\n${bomb.join('\n')}\n---\n`)).toEqual({
      ok: false,
      problem: 'the front matter could not be read: Excessive alias count indicates a resource exhaustion attack',
    });
    expect(await parseFrontMatter('---\nname: x\n')).toEqual({
      ok: false,
      problem: 'the front matter opened on line 1 is never closed with a `---` line',
    });
    expect(await parseFrontMatter('\uFEFF---\r\nname: [a\r\n---\r\n')).toEqual({
      ok: false,
      problem:
        'line 2, column 9: the front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    });
  });
});

describe('renderSkillsSection', () => {
  it('lists each skill after a short preamble, and is empty without skills', () => {
    const text = renderSkillsSection([
      { name: 'pdf', description: 'Fill PDF\nforms.', path: '/h/skills/pdf/SKILL.md' },
      { name: 'release', description: 'Cut a release.', path: '/w/.agents/skills/release/SKILL.md' },
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('## Skills');
    expect(lines.slice(-2)).toEqual([
      '- pdf: Fill PDF forms. (file: /h/skills/pdf/SKILL.md)',
      '- release: Cut a release. (file: /w/.agents/skills/release/SKILL.md)',
    ]);
    expect(text).toContain('read that SKILL.md before you start');
    expect(renderSkillsSection([])).toBe('');
  });
});
