// Codex homes whose threads Weft lists (`weft threads import-codex`). Weft only reads them: a Codex thread
// continued in Weft is copied into a new Weft thread forked from it. The list of homes is kept in
// `WEFT_HOME/codex-homes.json` (`{"homes": [absolute paths]}`) so a rebuilt index finds them again.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ARCHIVED_DIR, CODEX_HOMES_FILE, SESSIONS_DIR } from './paths';
import type { RolloutSource } from './index-changes';

const HomesFile = z.object({ homes: z.array(z.string()) });

export function readCodexHomes(weftHome: string, warnings: string[]): string[] {
  const file = join(weftHome, CODEX_HOMES_FILE);
  if (!existsSync(file)) return [];
  try {
    const parsed = HomesFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data.homes;
    warnings.push(`${file}: not a list of Codex homes ({"homes": [...]}); ignored`);
  } catch (error) {
    warnings.push(`${file}: unreadable (${error instanceof Error ? error.message : String(error)}); ignored`);
  }
  return [];
}

/** Adds `codexHome` to the list (written atomically); returns the absolute path. */
export function rememberCodexHome(weftHome: string, codexHome: string): string {
  const abs = resolve(codexHome);
  const homes = readCodexHomes(weftHome, []);
  if (!homes.includes(abs)) {
    const file = join(weftHome, CODEX_HOMES_FILE);
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify({ homes: [...homes, abs] }, null, 2) + '\n');
    renameSync(tmp, file);
  }
  return abs;
}

const SessionIndexLine = z.object({ id: z.string(), thread_name: z.string().nullish() });

/** Thread names from Codex's append-only `session_index.jsonl`: the newest line per id wins. */
export function readCodexNames(codexHome: string): Map<string, string> {
  const names = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(join(codexHome, 'session_index.jsonl'), 'utf8');
  } catch {
    return names;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = SessionIndexLine.safeParse(json);
    if (!parsed.success) continue;
    if (parsed.data.thread_name) names.set(parsed.data.id, parsed.data.thread_name);
    else names.delete(parsed.data.id);
  }
  return names;
}

/** The rollout folders of a Codex home. */
export function codexSources(codexHome: string): RolloutSource[] {
  const names = readCodexNames(codexHome);
  return [
    { dir: join(codexHome, SESSIONS_DIR), archived: false, origin: 'codex', names },
    { dir: join(codexHome, ARCHIVED_DIR), archived: true, origin: 'codex', names },
  ];
}
