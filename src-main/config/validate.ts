/**
 * Turning schema issues into messages for people. A layer is checked on its own first (so a bad
 * value is reported in the file or flag that holds it, even if a higher layer hides it); unknown
 * keys and redefined built-in providers become warnings and are dropped. The merged layers are
 * then parsed once more, which applies defaults and cross-layer checks.
 */
import type { z } from 'zod';
import { ConfigError } from './errors';
import { configLayerSchema, knownKeysAt, weftConfigSchema } from './schema';
import type { WeftConfig } from './schema';
import { cloneDocument, deletePath, describeValue, getPath, isTable, mergeDocuments } from './document';
import type { TomlDocument } from './document';
import type { ConfigLayer, LayerPlace } from './layers';
import { closestMatch } from './suggest';
import { formatKeyPath } from './toml-keys';
import { BUILTIN_PROVIDER_IDS } from './providers';

type Issue = z.core.$ZodIssue;
type Path = (string | number)[];

/** The layer without unknown keys or redefined built-in providers, and the warnings about them. Throws ConfigError on bad values. */
export function checkLayer(layer: ConfigLayer): { layer: ConfigLayer; warnings: string[] } {
  const result = configLayerSchema.safeParse(layer.doc);
  const issues = result.success ? [] : result.error.issues;
  const problems = issues.filter((issue) => issue.code !== 'unrecognized_keys');
  if (problems.length > 0) throw layerError(problems, layer.doc, () => layer);

  const doc = cloneDocument(layer.doc);
  const warnings: Array<{ place: LayerPlace; text: string }> = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const parent = toPath(issue.path);
    for (const key of issue.keys) {
      const path = [...parent, key];
      const suggestion = closestMatch(key, knownKeysAt(parent));
      const hint = suggestion === null ? '' : ` (did you mean \`${formatKeyPath([...parent, suggestion])}\`?)`;
      const place = layer.place(path);
      warnings.push({ place, text: `${place.atLine}: unknown key \`${formatKeyPath(path)}\`${hint}` });
      deletePath(doc, path);
    }
  }
  const providers = doc['model_providers'];
  if (isTable(providers)) {
    for (const id of Object.keys(providers).filter((key) => BUILTIN_PROVIDER_IDS.includes(key))) {
      const table = formatKeyPath(['model_providers', id]);
      const place = layer.place(['model_providers', id]);
      const text = `${place.atLine}: [${table}] is ignored: "${id}" is a built-in provider and cannot be redefined; give your table another id and point model_provider at it`;
      warnings.push({ place, text });
      deletePath(doc, ['model_providers', id]);
    }
  }
  return { layer: { ...layer, doc }, warnings: inFileOrder(warnings).map((w) => w.text) };
}

/** Merges checked layers (lowest precedence first) and applies defaults. Throws ConfigError. */
export function mergeLayers(layers: readonly ConfigLayer[]): WeftConfig {
  const merged = layers.reduce<TomlDocument>((doc, layer) => mergeDocuments(doc, layer.doc), {});
  const result = weftConfigSchema.safeParse(merged);
  if (result.success) return result.data;
  throw layerError(result.error.issues, merged, (path) => ownerOf(layers, path));
}

/** The highest layer that writes `path` or, failing that, its nearest ancestor. */
function ownerOf(layers: readonly ConfigLayer[], path: Path): ConfigLayer | undefined {
  for (let length = path.length; length > 0; length--) {
    const prefix = path.slice(0, length);
    const owner = [...layers].reverse().find((layer) => getPath(layer.doc, prefix) !== undefined);
    if (owner) return owner;
  }
  return undefined;
}

function layerError(
  issues: readonly Issue[],
  doc: TomlDocument,
  layerFor: (path: Path) => ConfigLayer | undefined,
): ConfigError {
  const found = issues.map((issue) => {
    const path = toPath(issue.path);
    const place: LayerPlace | undefined = layerFor(path)?.place(path);
    const message = describeIssue(issue, path, getPath(doc, path));
    return { place, text: place === undefined ? message : `${place.at}: ${message}` };
  });
  const sorted = inFileOrder(found);
  return new ConfigError(sorted.map((f) => f.text).join('\n'), sorted[0]?.place ?? {});
}

/** Sorted by line and column; entries without a position keep their order, after the others. */
function inFileOrder<T extends { place: LayerPlace | undefined }>(entries: readonly T[]): T[] {
  const key = (entry: T): [number, number] => [entry.place?.line ?? Infinity, entry.place?.column ?? Infinity];
  return [...entries].sort((a, b) => {
    const [la, ca] = key(a);
    const [lb, cb] = key(b);
    return la !== lb ? (la < lb ? -1 : 1) : ca !== cb ? (ca < cb ? -1 : 1) : 0;
  });
}

/** One issue as a sentence about the key, without its location. */
export function describeIssue(issue: Issue, path: Path, value: unknown): string {
  const key = `\`${formatKeyPath(path)}\``;
  const got = `(got ${describeValue(value)})`;
  switch (issue.code) {
    case 'invalid_value': {
      const allowed = issue.values.map(String);
      const suggestion = typeof value === 'string' ? closestMatch(value, allowed) : null;
      const hint = suggestion === null ? '' : `; did you mean "${suggestion}"?`;
      return `${key} must be one of ${allowed.join(', ')} ${got}${hint}`;
    }
    case 'invalid_type':
      return `${key} must be ${expectedType(issue.expected)} ${got}`;
    case 'too_big':
      return `${key} must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)} ${got}`;
    case 'too_small':
      if (issue.inclusive === false && Number(issue.minimum) === 0) return `${key} must be greater than 0 ${got}`;
      return `${key} must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${String(issue.minimum)} ${got}`;
    case 'custom':
      return issue.message;
    default:
      return `${key}: ${issue.message}`;
  }
}

function expectedType(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'int':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'an array';
    case 'object':
    case 'record':
      return 'a table';
    default:
      return expected;
  }
}

function toPath(path: readonly PropertyKey[]): Path {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}
