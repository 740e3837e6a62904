// Threads made by the real Codex 0.169 (test/fixtures/codex-0.169, made by `node scripts/codex-tools.mjs
// make-fixtures`): `codex exec` with a command, a patch and reasoning, resumed twice; a fork of it and a fork
// of that fork (each holding only its own lines, with `history_base` into its parent); a compaction; a
// rename (session_index.jsonl); the first thread archived. `three-turns.jsonl` is one more real 0.169 rollout
// (a command, a patch, three turns), placed in the same Codex home.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { findSibling, siblingsAmong } from '../../../src-main/store/rollout-source';
import type { ResponseItem, ThreadItem, Turn } from '../../../src-preload/protocol';
import type { ThreadStore } from '../../../src-main/store';
import { openStore, tempHome, type TempHome } from './helpers';

const FIXTURES = join(__dirname, '../../fixtures/codex-0.169');
const ids = JSON.parse(readFileSync(join(FIXTURES, 'threads.json'), 'utf8')) as {
  main: string;
  fork: string;
  forkOfFork: string;
  compacted: string;
};

const THREE_TURNS = '01a20966-d840-7883-a01d-5c8eb6808e3c';

let tmp: TempHome;
let store: ThreadStore;
let codexHome: string;

beforeEach(async () => {
  tmp = await tempHome();
  codexHome = join(tmp.home, 'codex');
  cpSync(FIXTURES, codexHome, { recursive: true });
  const day = join(codexHome, 'sessions/2026/11/23');
  mkdirSync(day, { recursive: true });
  renameSync(join(codexHome, 'three-turns.jsonl'), join(day, `rollout-2026-11-23T17-14-24-${THREE_TURNS}.jsonl`));
  ({ store } = openStore(join(tmp.home, 'weft')));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

/** Items without their ids (Codex's own ids, checked separately), as `type: summary` for a compact view. */
function shape(item: ThreadItem): unknown {
  switch (item.type) {
    case 'userMessage':
      return ['user', item.content];
    case 'agentMessage':
      return ['agent', item.text];
    case 'reasoning':
      return ['reasoning', item.summary];
    case 'commandExecution':
      return [
        'command',
        item.command,
        item.cwd,
        item.status,
        item.exitCode,
        item.aggregatedOutput?.trim().split('\n').pop(),
      ];
    case 'fileChange':
      return ['patch', item.changes, item.status];
    case 'contextCompaction':
      return ['compaction'];
    default:
      return [item.type];
  }
}

const turnShapes = (turns: Turn[]): unknown[][] => turns.map((t) => t.items.map(shape));
const text = (t: string) => [{ type: 'text', text: t }];

const MAIN_TURNS = [
  [
    ['user', text('RUN echo marker-alpha')],
    ['command', 'echo marker-alpha', '/home/dev/src/demo', 'completed', 0, 'marker-alpha'],
    ['agent', 'DONE: marker-alpha'],
  ],
  [
    ['user', text('PATCH notes-beta.txt zebra-gamma')],
    [
      'patch',
      [{ path: '/home/dev/src/demo/notes-beta.txt', kind: { type: 'add' }, diff: 'zebra-gamma\n' }],
      'completed',
    ],
    ['agent', 'DONE: A notes-beta.txt'],
  ],
  [
    ['user', text('THINK pondering quokka-delta')],
    ['reasoning', ['pondering quokka-delta']],
    ['agent', 'ACK: pondering quokka-delta'],
  ],
];

function messages(history: ResponseItem[]): string[] {
  return history.flatMap((item) => {
    if (item.type !== 'message' || !('content' in item) || !Array.isArray(item.content)) return [];
    const first: unknown = item.content[0];
    const t =
      typeof first === 'object' && first !== null && 'text' in first && typeof first.text === 'string'
        ? first.text
        : '';
    return t.startsWith('<') ? [] : [t];
  });
}

describe('Codex 0.169 rollouts', () => {
  it('read whole: every turn with its items (command, patch, reasoning), ids and times from Codex', async () => {
    await store.importCodex(codexHome);
    const read = store.read(ids.main, { includeTurns: true });
    expect(read.warnings).toEqual([]);
    expect(turnShapes(read.thread.turns)).toEqual(MAIN_TURNS);
    expect(read.thread).toMatchObject({
      id: ids.main,
      preview: 'RUN echo marker-alpha',
      name: 'Renamed main thread',
      cliVersion: '0.169.0',
      source: 'exec',
      modelProvider: 'mock',
    });
    const [first] = read.thread.turns;
    expect(first?.items.map((i) => i.id)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), 'call_fx_1', 'msg_fx_2']);
    expect(first).toMatchObject({ status: 'completed', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const command = first?.items[1];
    expect(command).toMatchObject({
      type: 'commandExecution',
      commandActions: [{ type: 'unknown', command: 'echo marker-alpha' }],
      durationMs: expect.any(Number),
    });
  });

  it('are listed with their preview and name, and every user and agent message is searchable', async () => {
    const result = await store.importCodex(codexHome);
    expect(result).toEqual({ imported: 5, warnings: [] });
    const live = store.list().data;
    expect(live.map((t) => [t.id, t.preview])).toEqual([
      [ids.compacted, 'first words before compaction walrus-zeta'],
      [ids.forkOfFork, 'RUN echo marker-alpha'],
      [ids.fork, 'RUN echo marker-alpha'],
      [THREE_TURNS, 'ACC_EXEC echo marker-alpha'],
    ]);
    expect(store.list({ archived: true }).data.map((t) => [t.id, t.name, t.preview])).toEqual([
      [ids.main, 'Renamed main thread', 'RUN echo marker-alpha'],
    ]);
    const search = (term: string, archived = false): string[] =>
      store
        .list({ searchTerm: term, archived })
        .data.map((t) => t.id)
        .sort();
    expect(search('pondering')).toEqual([ids.fork, ids.forkOfFork].sort());
    expect(search('pondering', true)).toEqual([ids.main]);
    expect(search('ocelot')).toEqual([ids.fork, ids.forkOfFork].sort());
    expect(search('kestrel')).toEqual([ids.forkOfFork]);
    expect(search('yak')).toEqual([ids.compacted]);
    expect(search('SUMMARY')).toEqual([]);
  });

  it('forks follow history_base into their (archived) parents, for the turns and for the model', async () => {
    await store.importCodex(codexHome);
    const fork = store.load(ids.fork);
    expect(fork.warnings).toEqual([]);
    expect(turnShapes(fork.turns)).toEqual([
      ...MAIN_TURNS,
      [
        ['user', text('please summarise the fork ocelot-epsilon')],
        ['agent', 'ACK: please summarise the fork ocelot-epsilon'],
      ],
    ]);
    expect(fork.thread).toMatchObject({ id: ids.fork, forkedFromId: ids.main, preview: 'RUN echo marker-alpha' });

    const deeper = store.load(ids.forkOfFork);
    expect(deeper.warnings).toEqual([]);
    expect(deeper.turns).toHaveLength(5);
    expect(messages(deeper.history)).toEqual([
      'RUN echo marker-alpha',
      'DONE: marker-alpha',
      'PATCH notes-beta.txt zebra-gamma',
      'DONE: A notes-beta.txt',
      'THINK pondering quokka-delta',
      'ACK: pondering quokka-delta',
      'please summarise the fork ocelot-epsilon',
      'ACK: please summarise the fork ocelot-epsilon',
      'second fork walks two parents kestrel-theta',
      'ACK: second fork walks two parents kestrel-theta',
    ]);
    const calls = deeper.history
      .filter((i) => i.type === 'function_call' || i.type === 'function_call_output')
      .map((i) => ('call_id' in i ? i.call_id : ''));
    expect(calls).toEqual(['call_fx_1', 'call_fx_1', 'call_fx_3', 'call_fx_3']);
  });

  it('never send Codex-internal fields or Codex-made message ids to the model', async () => {
    await store.importCodex(codexHome);
    const history = store.load(ids.forkOfFork).history;
    const json = JSON.stringify(history);
    expect(json).not.toContain('internal_chat_message_metadata_passthrough');
    expect(json).not.toContain('ordinal');
    expect(json).not.toContain('history_sequence');
    const userIds = history.filter((i) => i.type === 'message' && 'role' in i && i.role === 'user' && 'id' in i);
    expect(userIds).toEqual([]);
    expect(history.find((i) => i.type === 'message' && 'role' in i && i.role === 'assistant')).toMatchObject({
      id: 'msg_fx_2',
    });
  });

  it('a compaction shows as an item and the model history restarts from its replacement history', async () => {
    await store.importCodex(codexHome);
    const state = store.load(ids.compacted);
    expect(state.warnings).toEqual([]);
    expect(turnShapes(state.turns)).toEqual([
      [
        ['user', text('first words before compaction walrus-zeta')],
        ['agent', 'ACK: first words before compaction walrus-zeta'],
      ],
      [
        ['compaction'],
        ['user', text('second words after compaction yak-eta')],
        ['agent', 'ACK: second words after compaction yak-eta'],
      ],
    ]);
    const words = messages(state.history);
    expect(words[0]).toBe('first words before compaction walrus-zeta');
    expect(words[1]).toMatch(/^Another language model started to solve this problem[\s\S]*SUMMARY: /);
    expect(words.slice(2)).toEqual([
      'second words after compaction yak-eta',
      'ACK: second words after compaction yak-eta',
    ]);
  });

  it('the shared three-turn rollout reads whole too', async () => {
    await store.importCodex(codexHome);
    const read = store.read(THREE_TURNS, { includeTurns: true });
    expect(read.warnings).toEqual([]);
    expect(read.thread.turns.map((t) => t.items.map((i) => i.type))).toEqual([
      ['userMessage', 'commandExecution', 'agentMessage'],
      ['userMessage', 'fileChange', 'agentMessage'],
      ['userMessage', 'agentMessage'],
    ]);
    expect(
      store
        .list({ searchTerm: 'zebra' })
        .data.map((t) => t.id)
        .sort(),
    ).toEqual([THREE_TURNS, ids.fork, ids.forkOfFork].sort());
  });

  it("a repair finds a fork's parent among the rollouts it listed as a look through the folders does", () => {
    const paths = readdirSync(codexHome, { recursive: true, encoding: 'utf8' })
      .filter((p) => p.endsWith('.jsonl') && p.includes('rollout-'))
      .map((p) => join(codexHome, p));
    expect(paths.length).toBeGreaterThanOrEqual(5);
    const listed = siblingsAmong(paths);
    const known = [ids.main, ids.fork, ids.forkOfFork, ids.compacted, THREE_TURNS];
    for (const child of paths)
      for (const id of [...known, '01a217dd-0000-7000-8000-000000000000'])
        expect(listed(child, id), `${child} ${id}`).toBe(findSibling(child, id));
    expect(listed(paths[0] ?? '', ids.main)).toMatch(/archived_sessions/);
    // A parent written after the listing is still found, on disk.
    const later = siblingsAmong(paths.filter((p) => !p.includes(ids.main)));
    expect(later(paths[0] ?? '', ids.main)).toBe(findSibling(paths[0] ?? '', ids.main));
  });

  it('a fork whose parent is gone shows its own turns and says why', async () => {
    rmSync(join(codexHome, 'archived_sessions'), { recursive: true });
    await store.importCodex(codexHome);
    const fork = store.load(ids.fork);
    expect(fork.turns).toHaveLength(1);
    expect(fork.warnings).toEqual([expect.stringContaining(`continues thread ${ids.main}, which was not found`)]);
  });
});
