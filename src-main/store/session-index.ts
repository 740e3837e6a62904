// `session_index.jsonl`: where Codex keeps thread names, one JSON line per rename,
// `{"id", "thread_name", "updated_at"}` (RFC 3339); the newest line of an id wins, and a null name clears it.
// Weft appends its renames to WEFT_HOME/session_index.jsonl too, so a Weft thread copied into a Codex home
// (with that file) keeps its name there. Each line is one append; a failure never fails the rename.
import { appendFileSync } from 'node:fs';

export const SESSION_INDEX_FILE = 'session_index.jsonl';

export function sessionIndexLine(id: string, name: string | null, at: Date): string {
  return JSON.stringify({ id, thread_name: name, updated_at: at.toISOString() }) + '\n';
}

/** Appends a rename; returns false when the file could not be written. */
export function appendSessionIndex(file: string, id: string, name: string | null, at: Date): boolean {
  try {
    appendFileSync(file, sessionIndexLine(id, name, at));
    return true;
  } catch {
    return false;
  }
}
