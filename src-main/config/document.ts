/**
 * Helpers over raw TOML documents (what smol-toml returns, or what `-c` flags build): nested
 * tables of values. Arrays and other values are leaves; tables merge key by key.
 */

export type TomlDocument = Record<string, unknown>;

/** Assigning this key on a plain object would change its prototype; parsing rejects it too. */
export const UNSAFE_KEY = '__proto__';

/** A TOML table: a plain object, not an array or a date. */
export function isTable(value: unknown): value is TomlDocument {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The value at `path`, or undefined when any step is missing. */
export function getPath(doc: unknown, path: readonly (string | number)[]): unknown {
  let current: unknown = doc;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isTable(current) && typeof segment === 'string' && Object.hasOwn(current, segment))
      current = current[segment];
    else return undefined;
  }
  return current;
}

/** Removes the key at `path` (a string key of a table); no-op when absent. */
export function deletePath(doc: TomlDocument, path: readonly (string | number)[]): void {
  const parent = getPath(doc, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isTable(parent) && typeof last === 'string') Reflect.deleteProperty(parent, last);
}

/** Sets `path` to `value`, creating (or replacing non-table values with) tables on the way. */
export function setPath(doc: TomlDocument, path: readonly string[], value: unknown): void {
  let table = doc;
  path.slice(0, -1).forEach((segment) => {
    const next = table[segment];
    if (isTable(next)) {
      table = next;
    } else {
      const created: TomlDocument = {};
      table[segment] = created;
      table = created;
    }
  });
  const last = path[path.length - 1];
  if (last !== undefined) table[last] = value;
}

/** A deep copy of tables and arrays (other values are immutable or shared). */
export function cloneDocument(doc: TomlDocument): TomlDocument {
  const out: TomlDocument = {};
  for (const [key, value] of Object.entries(doc)) if (key !== UNSAFE_KEY) out[key] = cloneValue(value);
  return out;
}

function cloneValue(value: unknown): unknown {
  if (isTable(value)) return cloneDocument(value);
  if (Array.isArray(value)) return value.map(cloneValue);
  return value;
}

/** `base` with `top` laid over it: tables merge recursively, anything else in `top` replaces. */
export function mergeDocuments(base: TomlDocument, top: TomlDocument): TomlDocument {
  const out = cloneDocument(base);
  for (const [key, value] of Object.entries(top)) {
    if (key === UNSAFE_KEY) continue;
    const below = out[key];
    out[key] = isTable(below) && isTable(value) ? mergeDocuments(below, value) : cloneValue(value);
  }
  return out;
}

/** Every leaf (non-table value) with its path, depth first in key order. */
export function leafPaths(doc: TomlDocument, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [key, value] of Object.entries(doc)) {
    const path = [...prefix, key];
    if (isTable(value)) out.push(...leafPaths(value, path));
    else out.push(path);
  }
  return out;
}

/** A short description of a value for messages: `"text"`, `5`, `true`, `an array`, `a table`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return 'a date';
  if (Array.isArray(value)) return 'an array';
  if (isTable(value)) return 'a table';
  return 'nothing';
}
