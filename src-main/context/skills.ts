// Skills: folders holding a SKILL.md whose front matter names the skill and says when it applies.
// Found under `.agents/skills/` of every folder from the project root down to the cwd, and under
// `<weftHome>/skills/`; listed to the model, which reads a SKILL.md when its task matches.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../util/errors';
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
  const parsed = await parseFrontMatter(text);
  if (!parsed.ok) return { problem: parsed.problem };
  for (const key of ['name', 'description'] as const) {
    const field = parsed.fields.get(key);
    if (field !== undefined && typeof field.value !== 'string' && field.value !== null)
      return { problem: `line ${field.line}: \`${key}\` must be text, not ${kindOf(field.value)}` };
  }
  const name = textOf(parsed.fields.get('name')).trim();
  const description = textOf(parsed.fields.get('description')).trim();
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

/** A top-level value of the front matter and the file line (1-based) of its key. */
interface FrontMatterField {
  value: unknown;
  line: number;
}

type FrontMatter = { ok: true; fields: Map<string, FrontMatterField> } | { ok: false; problem: string };

/** How many alias expansions a front matter may cost (the `yaml` package's guard against alias bombs). */
const MAX_ALIAS_COUNT = 100;

/**
 * The YAML front matter of a SKILL.md: the `---` block opening the file, read by the `yaml` package (YAML
 * 1.2 core schema: plain data, no custom types) into its top-level keys. Problems name the line of the
 * file they are on. The package is loaded with the first SKILL.md read, not when the host starts.
 */
export async function parseFrontMatter(text: string): Promise<FrontMatter> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---')
    return { ok: false, problem: 'it does not start with a `---` line opening the YAML front matter' };
  const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === '---' || line.trimEnd() === '...'));
  if (end < 0) return { ok: false, problem: 'the front matter opened on line 1 is never closed with a `---` line' };

  const { isMap, isScalar, LineCounter, parseDocument } = await import('./yaml');
  const counter = new LineCounter();
  const doc = parseDocument(lines.slice(1, end).join('\n'), {
    schema: 'core',
    lineCounter: counter,
    prettyErrors: false,
    uniqueKeys: true,
  });
  /** File line of an offset in the block (the block starts on line 2). */
  const at = (offset: number): { line: number; col: number } => {
    const { line, col } = counter.linePos(offset);
    return { line: line + 1, col };
  };
  const error = doc.errors[0];
  if (error !== undefined) {
    const { line, col } = at(error.pos[0]);
    const hint = error.code === 'BLOCK_AS_IMPLICIT_KEY' ? ' (put a value holding ": " in quotes)' : '';
    return {
      ok: false,
      problem: `line ${line}, column ${col}: the front matter is not valid YAML: ${error.message}${hint}`,
    };
  }
  const fields = new Map<string, FrontMatterField>();
  if (doc.contents === null) return { ok: true, fields };
  if (!isMap(doc.contents)) {
    const what = isScalar(doc.contents) ? 'a single value' : 'a list';
    return { ok: false, problem: `the front matter must be \`key: value\` lines (a YAML map), not ${what}` };
  }
  let values: unknown;
  try {
    values = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // An alias bomb (aliases of aliases, each expanded again) is refused rather than built.
    return { ok: false, problem: `the front matter could not be read: ${errorMessage(error)}` };
  }
  if (typeof values !== 'object' || values === null) return { ok: true, fields };
  for (const pair of doc.contents.items) {
    if (!isScalar(pair.key) || typeof pair.key.value !== 'string') continue;
    const key = pair.key.value;
    fields.set(key, {
      value: Object.getOwnPropertyDescriptor(values, key)?.value,
      line: at(pair.key.range?.[0] ?? 0).line,
    });
  }
  return { ok: true, fields };
}

function textOf(field: FrontMatterField | undefined): string {
  return typeof field?.value === 'string' ? field.value : '';
}

/** What a non-text YAML value is, for a person, with what to do about it. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list; write it as one string';
  if (typeof value === 'number') return 'a number; put it in quotes';
  if (typeof value === 'boolean') return 'true or false; put it in quotes';
  return 'a map; put it in quotes';
}
