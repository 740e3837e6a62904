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
        `skipped the skill in ${ws.path('repo/.agents/skills/broken/SKILL.md')}: line 3: \`description\`: a plain value cannot contain ": "; put the value in quotes`,
        `skipped the skill in ${ws.path('repo/.agents/skills/nofm/SKILL.md')}: it does not start with a \`---\` line opening the YAML front matter`,
      ],
      problems: [
        {
          path: ws.path('repo/.agents/skills/broken/SKILL.md'),
          message: 'line 3: `description`: a plain value cannot contain ": "; put the value in quotes',
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
  it('reads quoted, plain and block scalars and skips nested maps', () => {
    const parsed = parseFrontMatter(
      '---\n# comment\nname: "a \\"b\\""\nsummary: |\n  line 1\n  line 2\nmetadata:\n  short-description: x\nlicense: MIT # trailing comment\n---\nbody',
    );
    expect(parsed).toEqual({
      ok: true,
      fields: new Map([
        ['name', 'a "b"'],
        ['summary', 'line 1\nline 2'],
        ['metadata', null],
        ['license', 'MIT'],
      ]),
    });
  });

  it('names the line of a problem', () => {
    expect(parseFrontMatter('---\nname: x\nname: y\n---\n')).toEqual({
      ok: false,
      problem: 'line 3: `name` is given twice',
    });
    expect(parseFrontMatter('---\nname x\n---\n')).toEqual({
      ok: false,
      problem: 'line 2: expected `key: value`, found "name x"',
    });
    expect(parseFrontMatter('---\nname: x\n')).toEqual({
      ok: false,
      problem: 'the front matter opened on line 1 is never closed with a `---` line',
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
