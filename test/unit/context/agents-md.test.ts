import { afterEach, describe, expect, it } from 'vitest';
import { discoverProjectDocs, projectDirs, renderProjectDocsMessage } from '../../../src-main/context/agents-md';
import { makeTempWorkspace, makeWeftHome } from '../../support/workspace';
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

/** A Weft home holding `files`. */
async function home(files: Record<string, string>): Promise<TempWorkspace> {
  return workspace(files);
}

async function emptyHome(): Promise<string> {
  const h = await makeWeftHome();
  cleanups.push(h.cleanup);
  return h.dir;
}

describe('discoverProjectDocs', () => {
  it('joins AGENTS.md from the repo root down to the cwd, the override winning within a folder', async () => {
    const ws = await workspace({
      'repo/.git/HEAD': 'ref: refs/heads/main\n',
      'repo/AGENTS.md': 'root rules',
      'repo/pkg/AGENTS.md': 'pkg rules (shadowed)',
      'repo/pkg/AGENTS.override.md': 'pkg override',
      'repo/pkg/app/notes.txt': '',
      'AGENTS.md': 'outside the repo: ignored',
    });
    const docs = await discoverProjectDocs({ cwd: ws.path('repo/pkg/app'), weftHome: await emptyHome() });
    expect(docs).toEqual({
      text: 'root rules\n\npkg override',
      sources: [ws.path('repo/AGENTS.md'), ws.path('repo/pkg/AGENTS.override.md')],
      warnings: [],
    });
  });

  it('uses a fallback filename only where neither AGENTS file exists, and accepts a `.git` file marker', async () => {
    const ws = await workspace({
      'wt/.git': 'gitdir: /elsewhere/.git/worktrees/wt\n',
      'wt/CLAUDE.md': 'root fallback',
      'wt/sub/AGENTS.md': 'sub agents',
      'wt/sub/CLAUDE.md': 'sub fallback (not used)',
    });
    const docs = await discoverProjectDocs({
      cwd: ws.path('wt/sub'),
      weftHome: await emptyHome(),
      fallbackFilenames: ['CLAUDE.md'],
    });
    expect(docs.text).toBe('root fallback\n\nsub agents');
    expect(docs.sources).toEqual([ws.path('wt/CLAUDE.md'), ws.path('wt/sub/AGENTS.md')]);
  });

  it('reads only the cwd when no folder above holds a marker', async () => {
    const ws = await workspace({ 'AGENTS.md': 'parent', 'a/AGENTS.md': 'cwd only' });
    const docs = await discoverProjectDocs({
      cwd: ws.path('a'),
      weftHome: await emptyHome(),
      projectRootMarkers: ['.no-such-marker'],
    });
    expect(docs.text).toBe('cwd only');
    expect(await projectDirs(ws.path('a'), [])).toEqual([ws.path('a')]);
  });

  it('puts the global override (else AGENTS.md, if not empty) before the project docs', async () => {
    const ws = await workspace({ '.git/HEAD': '', 'AGENTS.md': 'project' });
    const withOverride = await home({ 'AGENTS.override.md': 'global override\n', 'AGENTS.md': 'global' });
    expect(await discoverProjectDocs({ cwd: ws.dir, weftHome: withOverride.dir })).toEqual({
      text: 'global override\n\n--- project-doc ---\n\nproject',
      sources: [withOverride.path('AGENTS.override.md'), ws.path('AGENTS.md')],
      warnings: [],
    });
    const emptyOverride = await home({ 'AGENTS.override.md': '  \n', 'AGENTS.md': 'global' });
    expect((await discoverProjectDocs({ cwd: ws.dir, weftHome: emptyOverride.dir })).text).toBe(
      'global\n\n--- project-doc ---\n\nproject',
    );
  });

  it('cuts the project docs at maxBytes without splitting a character, and says what was cut', async () => {
    // "é" is 2 bytes: 10 bytes of "a", then 3 × "é" (6 bytes) = 16 bytes.
    const ws = await workspace({
      '.git/HEAD': '',
      'AGENTS.md': 'aaaaaaaaaa',
      'sub/AGENTS.md': 'ééé',
      'sub/deeper/AGENTS.md': 'never read',
    });
    const docs = await discoverProjectDocs({ cwd: ws.path('sub/deeper'), weftHome: await emptyHome(), maxBytes: 13 });
    expect(docs.text).toBe('aaaaaaaaaa\n\né');
    expect(docs.sources).toEqual([ws.path('AGENTS.md'), ws.path('sub/AGENTS.md')]);
    expect(docs.warnings).toEqual([
      `${ws.path('sub/AGENTS.md')} was cut by 4 of its 6 bytes: the project docs are limited to 13 bytes in total (project_doc_max_bytes).`,
      `${ws.path('sub/deeper/AGENTS.md')} was left out: the project docs already fill the 13-byte limit (project_doc_max_bytes).`,
    ]);
  });

  it('turns project docs off with maxBytes 0 but keeps the global docs', async () => {
    const ws = await workspace({ '.git/HEAD': '', 'AGENTS.md': 'project' });
    const h = await home({ 'AGENTS.md': 'global' });
    expect(await discoverProjectDocs({ cwd: ws.dir, weftHome: h.dir, maxBytes: 0 })).toEqual({
      text: 'global',
      sources: [h.path('AGENTS.md')],
      warnings: [],
    });
  });

  it('returns null text when there are no docs', async () => {
    const ws = await workspace({ '.git/HEAD': '', 'README.md': 'hi' });
    expect(await discoverProjectDocs({ cwd: ws.dir, weftHome: await emptyHome() })).toEqual({
      text: null,
      sources: [],
      warnings: [],
    });
  });
});

describe('renderProjectDocsMessage', () => {
  it('wraps the docs in the AGENTS.md instructions block of a user message', () => {
    expect(renderProjectDocsMessage('/w/repo', 'Use pnpm.')).toEqual({
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: '# AGENTS.md instructions for /w/repo\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>',
        },
      ],
    });
  });
});
