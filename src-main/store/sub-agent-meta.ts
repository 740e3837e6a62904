// A sub-agent thread's identity, as its rollout's session_meta holds it (Codex 0.169's fields, which Weft
// writes too): `source: {subagent: {thread_spawn: {parent_thread_id, depth, agent_path, agent_nickname,
// agent_role}}}` (or `{subagent: "review"}` and the like for Codex's internal ones), beside `session_id`
// (the root thread's), `parent_thread_id`, `agent_nickname` and `agent_role`. The rollout spells the source
// `subagent`; the wire spells it `subAgent`. Every reader (the outline, the index, a fork) goes through here.
import { z } from 'zod';
import {
  SubAgentSource,
  type SessionMetaPayload,
  type SessionSource,
  type Thread,
  type ThreadSpawnSource,
} from '../../src-preload/protocol';

/** A sub-agent as a thread carries it: how it came to be, its session tree, parent, nickname and role. */
export const SubAgentInfo = z.object({
  source: SubAgentSource,
  /** The root thread's id (the session tree); null when the meta does not say. */
  sessionId: z.string().nullable(),
  parentThreadId: z.string().nullable(),
  nickname: z.string().nullable(),
  role: z.string().nullable(),
});
export type SubAgentInfo = z.infer<typeof SubAgentInfo>;

/** What a new sub-agent's session_meta records (see `subAgentMetaFields`). */
export interface NewSubAgent {
  parentThreadId: string;
  /** The root thread's id. */
  sessionId: string;
  /** 1 for a child of a root thread. */
  depth: number;
  nickname: string;
  role: string | null;
}

const str = z.string().nullish().catch(null);
const SubAgentMetaFields = z.looseObject({
  session_id: str,
  parent_thread_id: str,
  agent_nickname: str,
  agent_role: str,
});

/** The sub-agent a session_meta describes, or null when it is not one (or its source cannot be read). */
export function subAgentOf(meta: SessionMetaPayload | null | undefined): SubAgentInfo | null {
  const raw = meta?.source;
  if (typeof raw !== 'object' || raw === null) return null;
  const value: unknown = 'subagent' in raw ? raw['subagent'] : 'subAgent' in raw ? raw['subAgent'] : undefined;
  const source = SubAgentSource.safeParse(value);
  if (!source.success) return null;
  const fields = SubAgentMetaFields.safeParse(meta);
  const f = fields.success ? fields.data : {};
  const spawn = spawnOf(source.data);
  return {
    source: source.data,
    sessionId: f.session_id ?? null,
    parentThreadId: f.parent_thread_id ?? spawn?.parent_thread_id ?? null,
    nickname: f.agent_nickname ?? spawn?.agent_nickname ?? null,
    role: f.agent_role ?? spawn?.agent_role ?? null,
  };
}

function spawnOf(source: SubAgentSource): ThreadSpawnSource | null {
  return typeof source === 'object' && 'thread_spawn' in source ? source.thread_spawn : null;
}

/**
 * The kind of a session_meta's source, as `thread/list {sourceKinds}` names it: the string itself, a
 * sub-agent's `subAgentThreadSpawn` / `subAgentReview` / `subAgentCompact` / `subAgentOther`, else the
 * object's first key.
 */
export function sourceKindOf(meta: SessionMetaPayload | null | undefined): string {
  const raw = meta?.source;
  if (typeof raw === 'string') return raw;
  const sub = subAgentOf(meta);
  if (sub !== null) {
    if (sub.source === 'review') return 'subAgentReview';
    if (sub.source === 'compact') return 'subAgentCompact';
    return spawnOf(sub.source) !== null ? 'subAgentThreadSpawn' : 'subAgentOther';
  }
  if (typeof raw === 'object' && raw !== null) return Object.keys(raw)[0] ?? 'unknown';
  return 'unknown';
}

/** `sourceKinds` of `thread/list` as the index's `source` column holds them (`subAgent` means all four). */
export function expandSourceKinds(kinds: readonly string[]): string[] {
  return [
    ...new Set(
      kinds.flatMap((k) =>
        k === 'subAgent' ? ['subAgentThreadSpawn', 'subAgentReview', 'subAgentCompact', 'subAgentOther'] : [k],
      ),
    ),
  ];
}

/**
 * A thread's source and sub-agent fields: `source` the kind (a string) for a thread that is no sub-agent
 * (the sub-agent fields absent), else `{subAgent}` with its session tree, parent, nickname and role.
 */
export function sourceFields(
  id: string,
  kind: string,
  sub: SubAgentInfo | null,
): Pick<Thread, 'source' | 'sessionId' | 'parentThreadId' | 'agentNickname' | 'agentRole'> {
  if (sub === null) return { source: kind, sessionId: id };
  const source: SessionSource = { subAgent: sub.source };
  return {
    source,
    sessionId: sub.sessionId ?? id,
    parentThreadId: sub.parentThreadId,
    agentNickname: sub.nickname,
    agentRole: sub.role,
  };
}

/**
 * Where a thread is in its session tree: a thread no model spawned is its own root (depth 0); a spawned one
 * is where its source says; null for Codex's internal sub-agents (a review, a compaction), which spawn none.
 */
export function agentTreeOf(
  thread: Pick<Thread, 'id' | 'source' | 'sessionId'>,
): { sessionId: string; depth: number } | null {
  const source = thread.source;
  if (typeof source !== 'object' || !('subAgent' in source)) return { sessionId: thread.id, depth: 0 };
  const spawn = spawnOf(source.subAgent);
  return spawn === null ? null : { sessionId: thread.sessionId ?? spawn.parent_thread_id, depth: spawn.depth };
}

/** The session_meta fields of a new sub-agent (Codex's, so that Codex lists and reads it as one). */
export function subAgentMetaFields(sub: NewSubAgent): Record<string, unknown> {
  return {
    session_id: sub.sessionId,
    parent_thread_id: sub.parentThreadId,
    source: {
      subagent: {
        thread_spawn: {
          parent_thread_id: sub.parentThreadId,
          depth: sub.depth,
          agent_path: null,
          agent_nickname: sub.nickname,
          agent_role: sub.role,
        },
      },
    },
    agent_nickname: sub.nickname,
    ...(sub.role === null ? {} : { agent_role: sub.role }),
  };
}

/** The info of a new sub-agent, as readers will find it in its session_meta. */
export function newSubAgentInfo(sub: NewSubAgent): SubAgentInfo {
  return {
    source: {
      thread_spawn: {
        parent_thread_id: sub.parentThreadId,
        depth: sub.depth,
        agent_path: null,
        agent_nickname: sub.nickname,
        agent_role: sub.role,
      },
    },
    sessionId: sub.sessionId,
    parentThreadId: sub.parentThreadId,
    nickname: sub.nickname,
    role: sub.role,
  };
}

/** The fields a fork drops from its source's session_meta: a fork of a sub-agent is a thread of its own. */
export const SUB_AGENT_META_KEYS: readonly string[] = [
  'session_id',
  'parent_thread_id',
  'agent_nickname',
  'agent_role',
  'agent_path',
  'thread_source',
];

/** The sub-agent info as the index keeps it (JSON), and back (null when unreadable). */
export function encodeSubAgent(sub: SubAgentInfo | null): string | null {
  return sub === null ? null : JSON.stringify(sub);
}

export function decodeSubAgent(text: string | null): SubAgentInfo | null {
  if (text === null) return null;
  try {
    const parsed = SubAgentInfo.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
