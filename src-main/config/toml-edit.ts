// Hand-written on purpose: the TOML packages for Node (smol-toml included) parse and stringify whole documents,
// dropping the user's comments, blank lines and key order; none edits a document in place.
/**
 * Editing TOML source in place: setting or removing one key while keeping every comment, blank
 * line and the order of everything else.
 * - an existing key keeps its line: only the value text is replaced (a trailing comment stays);
 * - a key inside an inline table rewrites that inline table;
 * - a new key goes at the end of its table (indented like its neighbours), or, written as a
 *   dotted key, at the end of the section whose dotted keys define that table; a new top-level
 *   key goes before the first table header;
 * - a table that does not exist yet becomes a new `[table]` section, placed after the last
 *   section it shares a prefix with (so `[projects."/b"]` lands next to `[projects."/a"]`), else
 *   at the end of the file.
 * Input must be a document smol-toml accepts. This is text surgery, not a serialiser: callers
 * re-parse the result and compare it with the intended document (see write.ts).
 */
import { parse } from 'smol-toml';
import { cloneDocument, deletePath, getPath, isTable, mergeDocuments, setPath } from './document';
import type { TomlDocument } from './document';
import { scanEntries } from './toml-keys';
import type { KeyEntry } from './toml-keys';
import { tomlDottedKey, tomlKey, tomlValue } from './toml-value';

/** `replace`: the value replaces what is there; `upsert`: a table value merges into an existing table. */
export type MergeStrategy = 'replace' | 'upsert';

/** `doc` with `value` at `path` under `strategy`: what the edited text must parse to. */
export function applySet(doc: TomlDocument, path: readonly string[], value: unknown, strategy: MergeStrategy): void {
  const existing = getPath(doc, path);
  setPath(
    doc,
    path,
    strategy === 'upsert' && isTable(existing) && isTable(value) ? mergeDocuments(existing, value) : value,
  );
}

/** `text` with `value` written at `path`. Throws ConfigError when TOML cannot hold the value. */
export function setInText(
  text: string,
  path: readonly string[],
  value: unknown,
  strategy: MergeStrategy = 'replace',
): string {
  return withoutBom(text, (body) => setIn(body, path, value, strategy));
}

/** `text` without the key or table at `path` (unchanged when it is not there). */
export function deleteInText(text: string, path: readonly string[]): string {
  return withoutBom(text, (body) => deleteIn(body, path));
}

function withoutBom(text: string, edit: (body: string) => string): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  return bom + edit(text.slice(bom.length));
}

interface Section {
  /** null for the top-level keys before the first header. */
  header: KeyEntry | null;
  path: string[];
  /** Where the section begins: the comment lines directly above its header belong to it. */
  start: number;
  /** Where the next section begins, or the end of the text. */
  end: number;
  /** Its key/value lines. */
  keys: KeyEntry[];
}

interface View {
  text: string;
  eol: string;
  doc: TomlDocument;
  entries: KeyEntry[];
  sections: Section[];
}

function view(text: string): View {
  const doc: TomlDocument = parse(text, { unsafeKeyBehaviour: 'throw' });
  const entries = scanEntries(text);
  const sections: Section[] = [{ header: null, path: [], start: 0, end: text.length, keys: [] }];
  let floor = 0;
  for (const entry of entries) {
    const current = sections[sections.length - 1];
    if (current === undefined) break;
    if (entry.kind === 'key') {
      current.keys.push(entry);
      floor = lineEnd(text, entry.valueEnd);
    } else if (entry.kind === 'table' || entry.kind === 'array') {
      const start = attachedStart(text, entry.offset, floor);
      current.end = start;
      sections.push({ header: entry, path: entry.path, start, end: text.length, keys: [] });
      floor = lineEnd(text, entry.offset);
    }
  }
  return { text, eol: text.includes('\r\n') ? '\r\n' : '\n', doc, entries, sections };
}

function setIn(text: string, path: readonly string[], value: unknown, strategy: MergeStrategy): string {
  const v = view(text);
  const ancestor = ancestorKey(v, path);
  if (ancestor !== undefined) {
    const current = getPath(v.doc, ancestor.path);
    const rewritten = isTable(current) ? cloneDocument(current) : {};
    applySet(rewritten, path.slice(ancestor.path.length), value, strategy);
    return replaceValue(v, ancestor, tomlValue(rewritten));
  }
  for (let length = 1; length < path.length; length++) {
    const above = getPath(v.doc, path.slice(0, length));
    if (above === undefined) break;
    // Not an inline value (handled above), so an array of tables: it is replaced by a table.
    if (!isTable(above)) return setIn(removeTree(v, path.slice(0, length)), path, value, strategy);
  }
  const existing = getPath(v.doc, path);
  const exact = keyAt(v, path);
  if (exact !== undefined) {
    const merged =
      strategy === 'upsert' && isTable(existing) && isTable(value) ? mergeDocuments(existing, value) : value;
    return replaceValue(v, exact, tomlValue(merged));
  }
  if (existing === undefined) return addIn(v, path, value);
  if (!isTable(existing) || !isTable(value)) return addIn(view(removeTree(v, path)), path, value);
  // A table written as a section (or dotted keys) set to a table: edit key by key, keeping its comments.
  let out = text;
  if (strategy === 'replace') {
    for (const key of Object.keys(existing)) if (!Object.hasOwn(value, key)) out = deleteIn(out, [...path, key]);
  }
  for (const [key, item] of Object.entries(value)) out = setIn(out, [...path, key], item, strategy);
  const after = view(out);
  return getPath(after.doc, path) === undefined ? addIn(after, path, {}) : out;
}

function deleteIn(text: string, path: readonly string[]): string {
  const v = view(text);
  if (getPath(v.doc, path) === undefined) return text;
  const ancestor = ancestorKey(v, path);
  if (ancestor !== undefined) {
    const current = getPath(v.doc, ancestor.path);
    if (!isTable(current)) return text;
    const rewritten = cloneDocument(current);
    deletePath(rewritten, path.slice(ancestor.path.length));
    return replaceValue(v, ancestor, tomlValue(rewritten));
  }
  return removeTree(v, path);
}

/** Adds `path = value` where nothing is written at `path` yet. */
function addIn(v: View, path: readonly string[], value: unknown): string {
  const parent = path.slice(0, -1);
  const key = path[path.length - 1] ?? '';
  const line = `${tomlKey(key)} = ${tomlValue(value)}`;
  if (parent.length === 0) return addTopLevel(v, line);
  if (isTable(getPath(v.doc, parent))) {
    const own = v.sections.find((s) => s.header?.kind === 'table' && samePath(s.path, parent));
    if (own !== undefined) return appendToSection(v, own, line);
    // The table is made by dotted keys in some section: add one more dotted key there.
    for (const section of [...v.sections].reverse()) {
      if (section.path.length >= parent.length || !startsWith(parent, section.path)) continue;
      const definer = section.keys.some((e) => e.path.length > parent.length && startsWith(e.path, parent));
      if (definer)
        return appendToSection(
          v,
          section,
          `${tomlDottedKey([...parent.slice(section.path.length), key])} = ${tomlValue(value)}`,
        );
    }
  }
  return addSection(v, parent, line);
}

function addTopLevel(v: View, line: string): string {
  const root = v.sections[0];
  if (root === undefined) return line + v.eol;
  // With no top-level keys yet, the key goes just above the first header (and its comments).
  if (root.keys.length === 0 && v.sections.length > 1) return insert(v.text, root.end, line + v.eol + v.eol);
  return appendToSection(v, root, line);
}

/** A new line after the last key of `section` (or after its header), indented like that key. */
function appendToSection(v: View, section: Section, line: string): string {
  const last = section.keys[section.keys.length - 1];
  if (last !== undefined) {
    const indent = v.text.slice(lineStart(v.text, last.offset), last.offset);
    return insertLine(v, lineEnd(v.text, last.valueEnd), indent + line);
  }
  if (section.header !== null) return insertLine(v, lineEnd(v.text, section.header.offset), line);
  return insertLine(v, v.text.length, line);
}

function addSection(v: View, parent: readonly string[], keyLine: string): string {
  let line = keyLine;
  const header = `[${tomlDottedKey(parent)}]`;
  let best: Section | null = null;
  let bestLength = 0;
  for (const section of v.sections) {
    if (section.header?.kind !== 'table' || !isTable(getPath(v.doc, section.path))) continue;
    const shared = commonPrefix(section.path, parent);
    if (shared >= 1 && shared >= bestLength) {
      best = section;
      bestLength = shared;
    }
  }
  if (best !== null) {
    const at = lastContentEnd(v.text, best);
    const rest = v.text.slice(at);
    const neighbour = best.keys[best.keys.length - 1];
    if (neighbour !== undefined) line = v.text.slice(lineStart(v.text, neighbour.offset), neighbour.offset) + line;
    if (rest.trim() !== '') {
      const blank = /^[ \t]*\r?\n/.test(rest);
      return insert(v.text, at, (blank ? v.eol : '') + header + v.eol + line + v.eol);
    }
  }
  let text = v.text;
  if (text !== '' && !text.endsWith('\n')) text += v.eol;
  const blank = text.trim() !== '' && !/(^|\n)[ \t]*\r?\n$/.test(text) && usesBlankLines(v);
  return text + (blank ? v.eol : '') + header + v.eol + line + v.eol;
}

/** Removes the sections and key lines of everything at or under `path`. */
function removeTree(v: View, path: readonly string[]): string {
  const ranges: Array<[number, number]> = [];
  for (const section of v.sections) {
    if (section.header !== null && startsWith(section.path, path)) ranges.push([section.start, section.end]);
    else
      for (const key of section.keys)
        if (startsWith(key.path, path)) ranges.push([lineStart(v.text, key.offset), lineEnd(v.text, key.valueEnd)]);
  }
  ranges.sort((a, b) => b[0] - a[0]);
  let out = v.text;
  for (const [from, to] of ranges) out = out.slice(0, from) + out.slice(to);
  if (ranges.some(([, to]) => to === v.text.length)) {
    out = out.replace(/(?:[ \t]*\r?\n)+$/, '');
    if (out !== '') out += v.eol;
  }
  return out;
}

function replaceValue(v: View, entry: KeyEntry, valueText: string): string {
  return v.text.slice(0, entry.valueStart) + valueText + v.text.slice(entry.valueEnd);
}

/** The key/value line whose key is a strict prefix of `path` (an inline table or a value in the way). */
function ancestorKey(v: View, path: readonly string[]): KeyEntry | undefined {
  return v.entries.find(
    (e) =>
      e.kind === 'key' &&
      e.path.length < path.length &&
      startsWith(path, e.path) &&
      getPath(v.doc, e.path) !== undefined,
  );
}

function keyAt(v: View, path: readonly string[]): KeyEntry | undefined {
  return v.entries.find((e) => e.kind === 'key' && samePath(e.path, path) && getPath(v.doc, path) !== undefined);
}

/** The start of the line at `offset`, moved up over comment lines directly above it (not below `floor`). */
function attachedStart(text: string, offset: number, floor: number): number {
  let start = lineStart(text, offset);
  while (start > floor) {
    const above = lineStart(text, start - 1);
    if (above < floor || !text.slice(above, start).trim().startsWith('#')) break;
    start = above;
  }
  return start;
}

/** The end of the last non-blank line of a section. */
function lastContentEnd(text: string, section: Section): number {
  let end = section.end;
  while (end > section.start) {
    const start = lineStart(text, end - 1);
    if (text.slice(start, end).trim() !== '') return lineEnd(text, start);
    end = start;
  }
  return section.end;
}

/** Whether sections are separated by blank lines in this file (true when there is nothing to go by). */
function usesBlankLines(v: View): boolean {
  const later = v.sections.filter((s) => s.header !== null && s.start > 0);
  return later.length === 0 || later.some((s) => /(^|\n)[ \t]*\r?\n$/.test(v.text.slice(0, s.start)));
}

function insertLine(v: View, at: number, line: string): string {
  if (at >= v.text.length && v.text !== '' && !v.text.endsWith('\n')) return v.text + v.eol + line + v.eol;
  return insert(v.text, at, line + v.eol);
}

function insert(text: string, at: number, piece: string): string {
  return text.slice(0, at) + piece + text.slice(at);
}

function lineStart(text: string, offset: number): number {
  return offset <= 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline + 1;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && startsWith(a, b);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment);
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
