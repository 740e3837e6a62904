// Parts of Codex's persisted events shared by both readers (codex-items.ts for the old event lines,
// codex-thread-items.ts for 0.169's items): command lines, parsed command actions, file changes.
import { z } from 'zod';
import type { CommandAction, FileUpdateChange } from '../../src-preload/protocol';

/** A command line for display: the script of `bash -lc <script>`, else the argv quoted for a shell. */
export function shellJoin(argv: readonly string[]): string {
  if (argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0] ?? '') && (argv[1] === '-lc' || argv[1] === '-c')) {
    return argv[2] ?? '';
  }
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

const ParsedCommand = z.looseObject({
  type: z.string(),
  cmd: z.string().nullish(),
  name: z.string().nullish(),
  path: z.string().nullish(),
  query: z.string().nullish(),
});

export function commandActions(value: unknown, command: string): CommandAction[] {
  const list = z.array(ParsedCommand).safeParse(value);
  if (!list.success) return [];
  return list.data.map((p): CommandAction => {
    const cmd = p.cmd ?? command;
    switch (p.type) {
      case 'read':
        return { type: 'read', command: cmd, name: p.name ?? '', path: p.path ?? '' };
      case 'list_files':
        return { type: 'listFiles', command: cmd, path: p.path ?? null };
      case 'search':
        return { type: 'search', command: cmd, query: p.query ?? null, path: p.path ?? null };
      default:
        return { type: 'unknown', command: cmd };
    }
  });
}

const FileChangeBody = z.looseObject({
  type: z.string().optional(),
  content: z.string().nullish(),
  unified_diff: z.string().nullish(),
  move_path: z.string().nullish(),
});

/** Codex's `FileChange`: internally tagged (`{type: "add", content}`) or externally (`{add: {content}}`). */
export function fileChange(path: string, value: unknown): FileUpdateChange | null {
  let kind: string | undefined;
  let body: unknown = value;
  const tagged = FileChangeBody.safeParse(value);
  if (tagged.success && tagged.data.type) kind = tagged.data.type;
  else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const first = entries[0];
    if (entries.length === 1 && first) [kind, body] = first;
  }
  const b = FileChangeBody.safeParse(body);
  if (!b.success || kind === undefined) return null;
  switch (kind) {
    case 'add':
      return { path, kind: { type: 'add' }, diff: b.data.content ?? '' };
    case 'delete':
      return { path, kind: { type: 'delete' }, diff: b.data.content ?? '' };
    case 'update':
      return { path, kind: { type: 'update', move_path: b.data.move_path ?? null }, diff: b.data.unified_diff ?? '' };
    default:
      return null;
  }
}
