/**
 * Config layers: one raw TOML document each, from lowest to highest precedence. Every layer can
 * say where one of its keys was written, so messages point at a file position or a `-c` flag.
 * Kinds, lowest first: built-in defaults, WEFT_HOME/config.toml, the project's `.weft/config.toml`
 * files (root first), the selected `[profiles.<name>]` table, the `-c` flags.
 */
import { createHash } from 'node:crypto';
import { parse, TomlError } from 'smol-toml';
import { DEFAULTS } from './schema';
import { ConfigError } from './errors';
import type { ConfigErrorLocation } from './errors';
import { setPath } from './document';
import type { TomlDocument } from './document';
import { formatKeyPath, KeyLocator } from './toml-keys';
import type { ParsedOverride } from './overrides';

export type LayerSource = 'default' | 'user' | 'project' | 'profile' | 'override';

/** Higher wins; the numbers follow Codex's (user 20, project 25, session flags 30). */
export const LAYER_PRECEDENCE: Readonly<Record<LayerSource, number>> = {
  default: 0,
  user: 20,
  project: 25,
  profile: 28,
  override: 30,
};

/** Where a key of a layer was written, ready for a message. */
export interface LayerPlace extends ConfigErrorLocation {
  /** `file:line:col`, `file`, or `-c key`: the prefix of an error message. */
  at: string;
  /** `file:line`, `file`, or `-c key`: the prefix of a warning. */
  atLine: string;
}

export interface ConfigLayer {
  source: LayerSource;
  /** The file this layer was read from (which may not exist yet for the user layer); null otherwise. */
  file: string | null;
  doc: TomlDocument;
  /** Where the key at `path` (or its nearest written ancestor) was set. */
  place(path: readonly (string | number)[]): LayerPlace;
  /** Short provenance for `LoadedConfig.origins`: `default`, the file path, `profile <name>`, or `-c key`. */
  origin(path: readonly string[]): string;
  /** Like `origin`, with the line for files: `file:line`. */
  originPlace(path: readonly string[]): string;
  /** For file layers: `configVersion` of the text read (of "" when the file does not exist). */
  version?: string;
  /** For the profile layer: the profile's name. */
  profile?: string;
}

/** A hash of a config file's text: what `expectedVersion` of a write is compared with. */
export function configVersion(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export function sortLayers(layers: readonly ConfigLayer[]): ConfigLayer[] {
  return [...layers].sort((a, b) => LAYER_PRECEDENCE[a.source] - LAYER_PRECEDENCE[b.source]);
}

export function defaultLayer(): ConfigLayer {
  return {
    source: 'default',
    file: null,
    doc: { ...DEFAULTS },
    place: () => ({ at: 'default config', atLine: 'default config' }),
    origin: () => 'default',
    originPlace: () => 'default',
  };
}

/** A layer with no keys, for a config file that does not exist. */
export function emptyFileLayer(source: LayerSource, file: string): ConfigLayer {
  return {
    source,
    file,
    doc: {},
    place: () => ({ at: file, atLine: file, file }),
    origin: () => file,
    originPlace: () => file,
    version: configVersion(''),
  };
}

/**
 * The parser reports a string left open as "control characters are not allowed" (a basic or literal
 * string ran into its line end) or "unfinished string" (the file ended inside it): both are one mistake,
 * a missing closing quote, and are named so. Null for every other error.
 */
function unterminatedString(reason: string, body: string, line: number, column: number): string | null {
  const lines = body.split('\n');
  if (reason === 'unfinished string') {
    const opening = lines[line - 1]?.slice(column - 1) ?? '';
    const quote = /^("""|'''|"|')/.exec(opening)?.[1] ?? '"';
    return `unterminated string (the closing ${quote} is missing)`;
  }
  if (reason === 'control characters are not allowed in strings') {
    const text = (lines[line - 1] ?? '').replace(/\r$/, '');
    // Only when the offending character is the line end itself: the string was never closed.
    if (column - 1 < text.length) return null;
    const quote = [...text].find((c) => c === '"' || c === "'") ?? '"';
    return `unterminated string (the closing ${quote} is missing on line ${line})`;
  }
  return null;
}

/** Parses the text of a config file; a TOML syntax error becomes a ConfigError at its position. */
export function fileLayer(source: LayerSource, file: string, text: string): ConfigLayer {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let doc: TomlDocument;
  try {
    doc = parse(body, { unsafeKeyBehaviour: 'throw' });
  } catch (error) {
    if (error instanceof TomlError) {
      let reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
      if (reason.includes('unsafe property')) reason += ' (keys named __proto__ or constructor are not allowed)';
      reason = unterminatedString(reason, body, error.line, error.column) ?? reason;
      throw new ConfigError(`${file}:${error.line}:${error.column}: TOML syntax error: ${reason}`, {
        file,
        line: error.line,
        column: error.column,
        excerpt: error.codeblock,
      });
    }
    throw error;
  }
  const locator = new KeyLocator(body);
  return {
    source,
    file,
    doc,
    place(path) {
      const position = locator.find(path);
      if (position === null) return { at: file, atLine: file, file };
      return {
        at: `${file}:${position.line}:${position.column}`,
        atLine: `${file}:${position.line}`,
        file,
        line: position.line,
        column: position.column,
        excerpt: locator.excerpt(position),
      };
    },
    origin: () => file,
    originPlace(path) {
      const position = locator.find(path);
      return position === null ? file : `${file}:${position.line}`;
    },
    version: configVersion(text),
  };
}

/** All `-c` flags as one layer; a later flag wins over an earlier one for the same key. */
export function overrideLayer(overrides: readonly ParsedOverride[]): ConfigLayer {
  const doc: TomlDocument = {};
  for (const override of overrides) setPath(doc, override.path, override.value);
  const flagFor = (path: readonly (string | number)[]): string => {
    const keys = path.filter((segment): segment is string => typeof segment === 'string');
    const related = overrides.filter((o) => o.path.every((k, i) => i >= keys.length || keys[i] === k));
    const flag = related[related.length - 1];
    return `-c ${formatKeyPath(flag?.path ?? keys)}`;
  };
  return {
    source: 'override',
    file: null,
    doc,
    place: (path) => ({ at: flagFor(path), atLine: flagFor(path) }),
    origin: flagFor,
    originPlace: flagFor,
  };
}
