import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { runThreadsCommand } from '../../../src-main/cli/threads';
import { CheckpointService } from '../../../src-main/checkpoints/service';
import { uuidv7 } from '../../../src-main/util/ids';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../../support/workspace';
import { ScriptedSession, meta, openStore } from '../store/helpers';
import { picture } from './helpers';

let ws: TempWorkspace;
let home: WeftHome;
afterEach(async () => {
  await ws.cleanup();
  await home.cleanup();
});

/** A saved thread of two turns whose tool calls changed files (checkpointed as the tool path does). */
async function threadWithChanges(): Promise<{ id: string; turns: string[]; original: Record<string, string> }> {
  ws = await makeTempWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  home = await makeWeftHome();
  const original = picture(ws.dir);
  const { store } = openStore(home.dir);
  const id = uuidv7();
  const { recorder } = store.createThread(meta(id, ws.dir));
  const session = new ScriptedSession(id, recorder);
  const service = new CheckpointService({ weftHome: home.dir });
  const turns: string[] = [];
  for (const script of [() => writeFileSync(ws.path('a.txt'), 'A\n'), () => writeFileSync(ws.path('c.txt'), 'new\n')]) {
    const turn = await session.turn([{ type: 'text', text: 'change' }], 'completed');
    await service.beforeChange(ws.dir);
    script();
    await service.afterToolCall({ threadId: id, turnId: turn.id, callId: null, root: ws.dir });
    turns.push(turn.id);
  }
  await service.dispose();
  await recorder.close();
  await store.close();
  return { id, turns, original };
}

async function weft(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runThreadsCommand(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { WEFT_HOME: home.dir, HOME: home.dir },
  });
  return { code, stdout, stderr };
}

describe('weft threads revert', () => {
  it('--files puts the files back and drops the turns', async () => {
    const { id, turns, original } = await threadWithChanges();
    const result = await weft('revert', id, '--before', turns[0] ?? '', '--files');
    expect(result).toEqual({
      code: 0,
      stdout: `Restored 2 file(s) in ${ws.dir}.\nDropped 2 turn(s) from thread ${id}.\n`,
      stderr: '',
    });
    expect(picture(ws.dir)).toEqual(original);
    const read = await weft('read', id, '--json');
    expect((JSON.parse(read.stdout) as { thread: { turns: unknown[] } }).thread.turns).toEqual([]);
  });

  it('stops on a file changed since, naming it; --force overwrites', async () => {
    const { id, turns, original } = await threadWithChanges();
    writeFileSync(ws.path('c.txt'), 'mine\n');
    const refused = await weft('revert', id, '--before', turns[0] ?? '', '--files');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('c.txt');
    expect(refused.stderr).toContain('--force');
    expect(picture(ws.dir)).not.toEqual(original);
    const forced = await weft('revert', id, '--before', turns[0] ?? '', '--files', '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('overwrote (after saving them) c.txt');
    expect(picture(ws.dir)).toEqual(original);
  });

  it('without --files changes only the history, and says so', async () => {
    const { id, turns } = await threadWithChanges();
    const before = picture(ws.dir);
    const result = await weft('revert', id, '--before', turns[1] ?? '');
    expect(result.stdout).toBe(`Dropped 1 turn(s) from thread ${id} (files untouched; add --files to restore them).\n`);
    expect(picture(ws.dir)).toEqual(before);
  });
});
