import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runThreadsCommand } from '../../../src-main/cli/threads';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, openStore, scriptEveryKind, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let ids: string[];

async function weft(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runThreadsCommand(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { WEFT_HOME: tmp.home, HOME: tmp.home },
  });
  return { code, stdout, stderr };
}

beforeEach(async () => {
  tmp = await tempHome();
  const { store } = openStore(tmp.home);
  ids = [];
  for (const cwd of ['/proj/one', '/proj/two']) {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id, cwd));
    await scriptEveryKind(new ScriptedSession(id, recorder));
    await recorder.close();
    ids.push(id);
  }
  await store.close();
});

afterEach(async () => {
  await tmp.dispose();
});

describe('weft threads', () => {
  it('lists, filters and searches', async () => {
    const json = await weft('list', '--json');
    expect(json.code).toBe(0);
    const page = JSON.parse(json.stdout) as { data: { id: string }[]; nextCursor: string | null };
    expect(page.data.map((t) => t.id)).toEqual([...ids].reverse());
    const human = await weft('list', '--cwd', '/proj/one');
    expect(human.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${ids[0]}  \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}  Parser fix  /proj/one$`)),
    ]);
    expect((await weft('list', '--search', 'zero', '--limit', '1')).stdout).toMatch(
      /More: weft threads list --cursor \S+/,
    );
    expect((await weft('list', '--search', 'absent-word')).stdout).toBe('No thread matches.\n');
  });

  it('marks a pinned thread', async () => {
    const { store } = openStore(tmp.home);
    await store.recordAttribute(ids[0] ?? '', { type: 'weft_thread_pinned', pinned: true });
    await store.close();
    const human = await weft('list');
    expect(human.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${ids[1]}  \\S+ \\S+  Parser fix  /proj/two$`)),
      expect.stringMatching(new RegExp(`^${ids[0]}  \\S+ \\S+  \\[pinned\\] Parser fix  /proj/one$`)),
    ]);
  });

  it('reads a thread with its turns', async () => {
    const { code, stdout } = await weft('read', ids[0] ?? '');
    expect(code).toBe(0);
    expect(stdout).toContain('Parser fix\n');
    expect(stdout).toContain('› Fix the failing test in parser.ts [image] [image /tmp/shot.png]');
    expect(stdout).toContain('$ npm test  (exit 1)\n    FAIL parser.test.ts');
    expect(stdout).toContain('    update /work/project/parser.ts');
    expect(stdout).toMatch(/── turn 2 · failed · .* · the context window is full/);
    expect(stdout).toContain('• Fixed: the parser now counts from zero.');
    const json = JSON.parse((await weft('read', ids[0] ?? '', '--json')).stdout) as { thread: { turns: unknown[] } };
    expect(json.thread.turns).toHaveLength(4);
  });

  it('titles a thread by its name, else its first message’s first line, else "Untitled thread"', async () => {
    const { store } = openStore(tmp.home);
    // Its only message is an image: no text to call it by.
    const empty = uuidv7();
    const created = store.createThread(meta(empty, '/proj/three'));
    await new ScriptedSession(empty, created.recorder).turn(
      [{ type: 'image', url: 'data:image/png;base64,AAAA' }],
      'completed',
    );
    await created.recorder.close();
    const asked = uuidv7();
    const { recorder } = store.createThread(meta(asked, '/proj/three'));
    await new ScriptedSession(asked, recorder).turn(
      [{ type: 'text', text: 'Fix the parser\nIt fails on empty input' }],
      'completed',
    );
    await recorder.close();
    await store.close();
    const titles = (await weft('list', '--cwd', '/proj/three')).stdout
      .trim()
      .split('\n')
      .map((line) => line.split('  ')[2])
      .sort();
    expect(titles).toEqual(['Fix the parser', 'Untitled thread']);
    expect((await weft('read', empty)).stdout).toMatch(new RegExp(`^Untitled thread\n${empty} · `));
    expect((await weft('read', asked)).stdout).toMatch(new RegExp(`^Fix the parser\n${asked} · `));
  });

  it('renames, archives and unarchives', async () => {
    const id = ids[1] ?? '';
    expect((await weft('rename', id, 'A', 'new', 'name')).code).toBe(0);
    expect((await weft('list', '--cwd', '/proj/two')).stdout).toContain('A new name');
    expect((await weft('archive', id)).code).toBe(0);
    expect((await weft('list', '--cwd', '/proj/two')).stdout).toBe('No threads yet.\n');
    expect((await weft('list', '--archived')).stdout).toContain(id);
    expect((await weft('unarchive', id)).code).toBe(0);
    expect((await weft('list', '--cwd', '/proj/two')).stdout).toContain(id);
  });

  it('reindexes and imports Codex homes', async () => {
    const re = await weft('reindex');
    expect(re).toMatchObject({ code: 0, stdout: 'Indexed 2 thread(s) from 2 rollout file(s).\n' });
    const imp = await weft('import-codex', join(tmp.home, 'no-codex-here'));
    expect(imp.code).toBe(0);
    expect(imp.stdout).toBe('Imported 0 Codex thread(s).\n');
    expect(imp.stderr).toMatch(/no Codex threads in .*no-codex-here/);
  });

  it('says what went wrong', async () => {
    expect(await weft('read', 'no-such-id')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^weft threads: no thread no-such-id in /),
    });
    expect(await weft('list', '--limit', '0')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--limit must be a whole number/),
    });
    expect(await weft('list', '--bogus')).toMatchObject({ code: 2 });
    expect(await weft('frobnicate')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown command "frobnicate"/),
    });
    expect((await weft('--help')).stdout).toMatch(/^Usage: weft threads/);
  });

  it('shows help for a sub-command instead of running it', async () => {
    for (const argv of [
      ['import-codex', '--help'],
      ['import-codex', '-h'],
      ['list', '--help'],
      ['reindex', '--help'],
    ]) {
      const result = await weft(...argv);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: weft threads/);
      expect(result.stdout).toContain('import-codex [CODEX_HOME]');
    }
    const flag = await weft('import-codex', '--all');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^weft threads: import-codex takes only a CODEX_HOME folder, not "--all"/);
  });
});
