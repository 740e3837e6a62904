// A Codex 0.169 thread whose turn a Stop hook blocked once (test/fixtures/codex-hooks-0.169/
// stop-prompt-rollout.json, by `scripts/codex-tools.mjs capture-stop-hooks --rollout`): imported, it reads with
// the same items Codex's own `thread/read` gave, its `hookPrompt` among them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ThreadStore } from '../../../src-main/store';
import { openStore, tempHome, type TempHome } from './helpers';

const FIXTURE = join(__dirname, '../../fixtures/codex-hooks-0.169/stop-prompt-rollout.json');

interface Captured {
  threadId: string;
  rollout: unknown[];
  read: { thread: { turns: { items: Record<string, unknown>[] }[] } };
}

let tmp: TempHome;
let store: ThreadStore;
let codexHome: string;
const captured = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Captured;

beforeEach(async () => {
  tmp = await tempHome();
  codexHome = join(tmp.home, 'codex');
  const day = join(codexHome, 'sessions/2026/11/29');
  mkdirSync(day, { recursive: true });
  writeFileSync(
    join(day, `rollout-2026-11-29T18-33-02-${captured.threadId}.jsonl`),
    captured.rollout.map((l) => JSON.stringify(l)).join('\n') + '\n',
  );
  ({ store } = openStore(join(tmp.home, 'weft')));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

describe('a Codex 0.169 thread with a Stop hook continuation', () => {
  it('reads with Codex’s hookPrompt item, where Codex showed it', async () => {
    expect(await store.importCodex(codexHome)).toEqual({ imported: 1, warnings: [] });
    const read = store.read(captured.threadId, { includeTurns: true });
    expect(read.warnings).toEqual([]);
    const theirs = captured.read.thread.turns[0]?.items ?? [];
    const ours = read.thread.turns[0]?.items ?? [];
    expect(ours.map((i) => [i.type, i.id])).toEqual(theirs.map((i) => [i['type'], i['id']]));
    const { startedAtMs: _s, completedAtMs: _c, ...prompt } = theirs.find((i) => i['type'] === 'hookPrompt') ?? {};
    expect(ours.find((i) => i.type === 'hookPrompt')).toEqual(prompt);
  });
});
