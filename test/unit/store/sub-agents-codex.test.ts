// Sub-agents as Codex 0.169 records and shows them (test/fixtures/codex-agents-0.169, made with the real
// CLI): a child's session_meta read by Weft gives the Thread fields Codex's `thread/read` gives; Weft's
// meta of a new child holds Codex's fields; Codex's collab items (rollout and wire) read as Weft's and back.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CollabAgentToolCallItem, SessionMetaPayload, Thread } from '../../../src-preload/protocol';
import { codexThreadItem, toCodexItem } from '../../../src-main/store/codex-thread-items';
import { sourceFields, sourceKindOf, subAgentMetaFields, subAgentOf } from '../../../src-main/store/sub-agent-meta';

const dir = resolve(__dirname, '../../fixtures/codex-agents-0.169');
const json = (name: string): unknown => JSON.parse(readFileSync(resolve(dir, name), 'utf8'));

const ChildThread = z.object({
  parentId: z.string(),
  childId: z.string(),
  read: z.object({ thread: z.record(z.string(), z.unknown()) }),
  sessionMeta: SessionMetaPayload,
});
const child = ChildThread.parse(json('child-thread.json'));
const codexThread = child.read.thread;
const Calls = z.array(z.object({ name: z.string(), output: z.string(), item: z.record(z.string(), z.unknown()) }));
const calls = Calls.parse(json('calls.json'));
const rolloutItems = z.array(z.record(z.string(), z.unknown())).parse(json('rollout-items.json'));

const SOURCE_FIELDS = ['source', 'sessionId', 'parentThreadId', 'agentNickname', 'agentRole'] as const;
const pick = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(SOURCE_FIELDS.map((k) => [k, o[k]]));

describe("a sub-agent thread, as Codex 0.169's fixtures show it", () => {
  it("reads Codex's child session_meta as Codex's thread/read shows the child", () => {
    const fields = sourceFields(child.childId, sourceKindOf(child.sessionMeta), subAgentOf(child.sessionMeta));
    expect(fields).toEqual(pick(codexThread));
    expect(sourceKindOf(child.sessionMeta)).toBe('subAgentThreadSpawn');
    // Weft's Thread schema takes Codex's fields as they are.
    expect(
      pick(
        Thread.pick({
          source: true,
          sessionId: true,
          parentThreadId: true,
          agentNickname: true,
          agentRole: true,
        }).parse(codexThread),
      ),
    ).toEqual(pick(codexThread));
  });

  it("writes a new child's session_meta with Codex's fields and values", () => {
    const spawn = { parentThreadId: child.parentId, sessionId: child.parentId, depth: 1, role: null };
    const nickname = String(codexThread['agentNickname']);
    const written = subAgentMetaFields({ ...spawn, nickname });
    const codex = Object.fromEntries(Object.keys(written).map((k) => [k, child.sessionMeta[k]]));
    expect(written).toEqual(codex);
  });

  it("reads Codex's collab rollout items as the items Codex's app-server sent, and writes them back", () => {
    expect(rolloutItems.length).toBe(calls.length);
    rolloutItems.forEach((form, i) => {
      const sent = calls[i]?.item ?? {};
      const wire = CollabAgentToolCallItem.parse(sent);
      // Codex's own wire item, with the fields Weft's item has (times are stamped on the notification).
      expect(wire).toEqual(Object.fromEntries(Object.entries(sent).filter(([k]) => !k.endsWith('AtMs'))));
      expect(codexThreadItem(form, 'fallback')).toEqual(wire);
      const { receiver_agents: _agents, ...rest } = form;
      const { receiver_agents: _ours, ...back } = toCodexItem(wire) ?? { type: 'none' };
      expect(back).toEqual(rest);
    });
  });
});
