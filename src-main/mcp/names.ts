// The names the model sees for MCP tools. Providers accept `[A-Za-z0-9_-]` up to 64 characters in a
// function name; Weft keeps to `[A-Za-z0-9_]` so `__` can separate the parts unambiguously:
// `mcp__<server>__<tool>` flat (Chat Completions), or namespace `mcp__<server>` holding `<tool>`
// (Responses). A name that had to be shortened, or that collides with another, ends in `_` and 12 hex
// characters of a SHA-1 of the server's and tool's real names, so the result never depends on the
// order in which servers answered.
import { createHash } from 'node:crypto';

/** The longest function name providers accept. */
export const MAX_TOOL_NAME = 64;
/** A namespace is kept short enough to leave room for the tool's own name in the flat form. */
const MAX_NAMESPACE = 32;
const HASH_CHARS = 12;

export function sanitizeName(raw: string): string {
  const cleaned = raw.replace(/[^A-Za-z0-9_]/g, '_');
  return cleaned === '' ? '_' : cleaned;
}

function digest(identity: string): string {
  return createHash('sha1').update(identity).digest('hex').slice(0, HASH_CHARS);
}

/** `name` cut to `max` characters with the identity's hash appended. */
function hashed(name: string, max: number, identity: string): string {
  const suffix = `_${digest(identity)}`;
  return `${name.slice(0, Math.max(0, max - suffix.length))}${suffix}`;
}

/** The namespace of one server's tools: `mcp__<server>`. */
export function namespaceFor(server: string): string {
  const base = `mcp__${sanitizeName(server)}`;
  return base.length <= MAX_NAMESPACE ? base : hashed(base, MAX_NAMESPACE, server);
}

export interface NamedTool {
  server: string;
  tool: string;
  /** The namespace the tool is offered under (Responses). */
  namespace: string;
  /** The tool's name inside its namespace. */
  name: string;
  /** `namespace__name`: the flat function name (Chat Completions) and the registry key. */
  flatName: string;
}

/**
 * Model-visible names for every (server, tool) pair. Servers whose sanitized names collide get
 * hashed namespaces; tools whose names collide or are too long get hashed names. Deterministic: the
 * result depends only on the set of pairs, not their order.
 */
export function assignToolNames(pairs: readonly { server: string; tool: string }[]): NamedTool[] {
  const servers = [...new Set(pairs.map((p) => p.server))].sort();
  const namespaceCounts = new Map<string, number>();
  for (const server of servers)
    namespaceCounts.set(namespaceFor(server), (namespaceCounts.get(namespaceFor(server)) ?? 0) + 1);
  const namespaces = new Map<string, string>();
  for (const server of servers) {
    const ns = namespaceFor(server);
    namespaces.set(server, (namespaceCounts.get(ns) ?? 0) > 1 ? hashed(ns, MAX_NAMESPACE, server) : ns);
  }
  const sorted = [...pairs].sort((a, b) =>
    a.server === b.server ? (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0) : a.server < b.server ? -1 : 1,
  );
  const counts = new Map<string, number>();
  const keyOf = (p: { server: string; tool: string }): string =>
    `${namespaces.get(p.server) ?? ''}\0${sanitizeName(p.tool)}`;
  for (const p of sorted) counts.set(keyOf(p), (counts.get(keyOf(p)) ?? 0) + 1);
  return sorted.map((p) => {
    const namespace = namespaces.get(p.server) ?? namespaceFor(p.server);
    const room = MAX_TOOL_NAME - namespace.length - 2;
    const plain = sanitizeName(p.tool);
    const collides = (counts.get(keyOf(p)) ?? 0) > 1;
    const name = !collides && plain.length <= room ? plain : hashed(plain, room, `${p.server}\0${p.tool}`);
    return { server: p.server, tool: p.tool, namespace, name, flatName: `${namespace}__${name}` };
  });
}
