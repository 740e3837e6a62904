// Skills: folders holding a SKILL.md whose front matter names the skill and says when it applies.
// Found under `.agents/skills/` of every folder from the project root down to the cwd, and under
// `<weftHome>/skills/`; listed to the model, which reads a SKILL.md when its task matches.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_PROJECT_ROOT_MARKERS, projectDirs } from './agents-md';

export const SKILL_FILE = 'SKILL.md';
export const MAX_SKILL_NAME_CHARS = 64;
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;
/** Folder levels below a skills root that are searched (a SKILL.md at `<root>/a/b/SKILL.md` is level 2). */
export const MAX_SCAN_DEPTH = 6;
/** Folders read per skills root, so a huge or looping tree cannot stall a turn. */
export const MAX_SCAN_DIRS = 2000;

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of the SKILL.md. */
  path: string;
}

export interface DiscoverSkillsOptions {
  cwd: string;
  weftHome: string;
  projectRootMarkers?: readonly string[];
}

/** Skills in discovery order: project roots from the project root down to the cwd, then the Weft home. */
export async function discoverSkills(
  options: DiscoverSkillsOptions,
): Promise<{ skills: Skill[]; warnings: string[]; problems: { path: string; message: string }[] }> {
  const roots = (await projectDirs(options.cwd, options.projectRootMarkers ?? DEFAULT_PROJECT_ROOT_MARKERS)).map(
    (dir) => join(dir, '.agents', 'skills'),
  );
  roots.push(join(options.weftHome, 'skills'));
  const skills: Skill[] = [];
  const warnings: string[] = [];
  /** The SKILL.md files that were skipped, and why (the same facts as some of `warnings`). */
  const problems: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    for (const path of await findSkillFiles(root, warnings)) {
      const real = await realpath(path).catch(() => path);
      if (seen.has(real)) continue;
      seen.add(real);
      const loaded = await loadSkill(path);
      if ('problem' in loaded) {
        warnings.push(`skipped the skill in ${path}: ${loaded.problem}`);
        problems.push({ path, message: loaded.problem });
      } else skills.push(loaded);
    }
  }
  return { skills, warnings, problems };
}

/** The skills list for the developer message; empty when there are no skills. */
export function renderSkillsSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = [
    '## Skills',
    "A skill is a folder of instructions (and sometimes scripts or other files) for one kind of task. Each line below gives a skill's name, when to use it, and its SKILL.md.",
    "When the task matches a skill's description, or the user names a skill (for example `$" +
      (skills[0]?.name ?? 'skill') +
      '`), read that SKILL.md before you start and follow it; resolve paths it mentions relative to its folder. Do not read skills the task does not need.',
    ...skills.map((s) => `- ${s.name}: ${oneLine(s.description)} (file: ${s.path})`),
  ];
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

async function loadSkill(path: string): Promise<Skill | { problem: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { problem: `could not read it (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return { problem: parsed.problem };
  const rawName = parsed.fields.get('name');
  const rawDescription = parsed.fields.get('description');
  if (rawName === null) return { problem: '`name` must be text, not a list or map' };
  if (rawDescription === null) return { problem: '`description` must be text, not a list or map' };
  const name = rawName?.trim() ?? '';
  const description = rawDescription?.trim() ?? '';
  if (name.length === 0) return { problem: 'the front matter has no `name`' };
  if (description.length === 0) return { problem: 'the front matter has no `description`' };
  if (/[\r\n]/.test(name)) return { problem: '`name` must be a single line' };
  if ([...name].length > MAX_SKILL_NAME_CHARS)
    return { problem: `\`name\` is ${[...name].length} characters long; the limit is ${MAX_SKILL_NAME_CHARS}` };
  if ([...description].length > MAX_SKILL_DESCRIPTION_CHARS) {
    return {
      problem: `\`description\` is ${[...description].length} characters long; the limit is ${MAX_SKILL_DESCRIPTION_CHARS}`,
    };
  }
  return { name, description, path };
}

/**
 * Every SKILL.md under `root`, breadth first, folders in name order. Hidden folders are skipped;
 * symlinked folders are followed once each.
 */
async function findSkillFiles(root: string, warnings: string[]): Promise<string[]> {
  const found: string[] = [];
  const visited = new Set<string>();
  const queue: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
  let scanned = 0;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const real = await realpath(next.dir).catch(() => null);
    if (real === null || visited.has(real)) continue;
    visited.add(real);
    if (scanned === MAX_SCAN_DIRS) {
      warnings.push(
        `stopped looking for skills in ${root} after ${MAX_SCAN_DIRS} folders; skills in the rest of it were not loaded.`,
      );
      break;
    }
    scanned++;
    let entries;
    try {
      entries = await readdir(next.dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(next.dir, entry.name);
      if (entry.name === SKILL_FILE && (entry.isFile() || (entry.isSymbolicLink() && (await isKind(path, 'file'))))) {
        found.push(path);
        continue;
      }
      if (entry.name.startsWith('.') || next.depth >= MAX_SCAN_DEPTH) continue;
      if (entry.isDirectory() || (entry.isSymbolicLink() && (await isKind(path, 'dir'))))
        queue.push({ dir: path, depth: next.depth + 1 });
    }
  }
  return found;
}

async function isKind(path: string, kind: 'file' | 'dir'): Promise<boolean> {
  try {
    const s = await stat(path);
    return kind === 'file' ? s.isFile() : s.isDirectory();
  } catch {
    return false;
  }
}

// ---- front matter ---------------------------------------------------------------------------------

/** Top-level keys → text values; `null` for a value that is a list or map. */
type FrontMatter = { ok: true; fields: Map<string, string | null> } | { ok: false; problem: string };

interface RawEntry {
  key: string;
  value: string;
  line: number;
  /** The indented lines after it. */
  more: string[];
}

const KEY_LINE = /^([A-Za-z0-9_-]+):(?:[ \t]+(.*))?$/;
const NESTED_LINE = /^\s+(?:- |-$|[A-Za-z0-9_"'-]+:(?:\s|$))/;

/**
 * A small, strict reader for the YAML front matter of a SKILL.md: the `---` block opening the file,
 * holding top-level `key: value` lines with plain, single- or double-quoted scalars, `|` / `>` block
 * scalars, or nested lists/maps (whose content is not read). Anything else is reported with its line.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---')
    return { ok: false, problem: 'it does not start with a `---` line opening the YAML front matter' };
  const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === '---' || line.trimEnd() === '...'));
  if (end < 0) return { ok: false, problem: 'the front matter opened on line 1 is never closed with a `---` line' };

  const entries: RawEntry[] = [];
  for (let i = 1; i < end; i++) {
    const line = lines[i] ?? '';
    const current = entries[entries.length - 1];
    if (/^\s/.test(line) && line.trim().length > 0) {
      if (!current) return { ok: false, problem: `line ${i + 1}: an indented line before any key` };
      current.more.push(line);
      continue;
    }
    if (line.trim().length === 0) {
      current?.more.push('');
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = KEY_LINE.exec(line);
    if (!m?.[1]) return { ok: false, problem: `line ${i + 1}: expected \`key: value\`, found ${JSON.stringify(line)}` };
    if (entries.some((e) => e.key === m[1])) return { ok: false, problem: `line ${i + 1}: \`${m[1]}\` is given twice` };
    entries.push({ key: m[1], value: (m[2] ?? '').trim(), line: i + 1, more: [] });
  }

  const fields = new Map<string, string | null>();
  for (const entry of entries) {
    const value = scalarValue(entry);
    if (typeof value === 'object' && value !== null) return { ok: false, problem: value.problem };
    fields.set(entry.key, value);
  }
  return { ok: true, fields };
}

function scalarValue(entry: RawEntry): string | null | { problem: string } {
  const { key, value, line } = entry;
  const more = trimTrailingBlank(entry.more);
  const at = `line ${line}: \`${key}\``;
  if (/^[|>][+-]?$/.test(value)) return blockScalar(value.startsWith('|'), more);
  if (value === '' && more.length === 0) return '';
  if (value === '' || value.startsWith('[') || value.startsWith('{')) {
    if (value === '' && !more.some((l) => NESTED_LINE.test(l))) return fold(more);
    return null;
  }
  if (value.startsWith('"')) {
    if (more.length > 0) return { problem: `${at}: a quoted value must fit on one line` };
    const m = /^("(?:[^"\\]|\\.)*")\s*(?:#.*)?$/.exec(value);
    if (!m?.[1]) return { problem: `${at}: the double-quoted value is not closed` };
    try {
      const parsed: unknown = JSON.parse(m[1]);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Reported below.
    }
    return { problem: `${at}: the double-quoted value has an escape this reader does not know` };
  }
  if (value.startsWith("'")) {
    if (more.length > 0) return { problem: `${at}: a quoted value must fit on one line` };
    const m = /^'((?:[^']|'')*)'\s*(?:#.*)?$/.exec(value);
    if (m?.[1] === undefined) return { problem: `${at}: the single-quoted value is not closed` };
    return m[1].replaceAll("''", "'");
  }
  if (/^[&*!%@`]/.test(value))
    return {
      problem: `${at}: anchors, aliases, tags and values starting with ${value[0]} are not supported; quote the value`,
    };
  const plain = value.replace(/\s+#.*$/, '');
  if (/:\s/.test(plain) || plain.endsWith(':'))
    return { problem: `${at}: a plain value cannot contain ": "; put the value in quotes` };
  if (more.some((l) => NESTED_LINE.test(l))) return { problem: `${at}: has both a value and nested lines` };
  return more.length === 0 ? plain : fold([plain, ...more]);
}

/** `|` keeps line breaks, `>` folds lines into spaces (blank lines stay breaks); indentation removed. */
function blockScalar(literal: boolean, lines: readonly string[]): string {
  const indent = Math.min(...lines.filter((l) => l.trim().length > 0).map((l) => /^\s*/.exec(l)?.[0].length ?? 0));
  const body = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
  return literal ? body.join('\n') : fold(body);
}

function fold(lines: readonly string[]): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  for (const l of lines) {
    if (l.trim().length === 0) {
      out.push(paragraph.join(' '));
      paragraph = [];
    } else {
      paragraph.push(l.trim());
    }
  }
  out.push(paragraph.join(' '));
  return out.join('\n').trim();
}

function trimTrailingBlank(lines: readonly string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1]?.trim() === '') out.pop();
  return out;
}
