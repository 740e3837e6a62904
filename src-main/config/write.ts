/**
 * Writing one key of a config file (`config/value/write`, UI settings, `weft config set`) without
 * disturbing the rest of it: comments, blank lines and order are kept (see toml-edit.ts). A write
 * is refused, leaving the file as it was, when the file changed since `expectedVersion`, when the
 * edit would not re-parse to exactly the intended document, or when it would make a valid file
 * invalid. Files are replaced atomically (temp file + rename) and keep their mode.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import { ConfigError } from './errors';
import { cloneDocument, deletePath, isTable, leafPaths, setPath, UNSAFE_KEY } from './document';
import type { TomlDocument } from './document';
import { configVersion, fileLayer } from './layers';
import type { ConfigLayer } from './layers';
import { checkLayer } from './validate';
import { formatKeyPath, parseKeyPath } from './toml-keys';
import { applySet, deleteInText, setInText } from './toml-edit';
import type { MergeStrategy } from './toml-edit';
import { loadConfig } from './load';
import type { LoadConfigOptions } from './load';
import { userConfigFile } from './home';
import { realpathOr } from './project';
import type { TrustLevel } from './project';

export interface WriteConfigOptions {
  /** The `version` the caller read (from a write result or a loaded layer); a mismatch refuses the write. */
  expectedVersion?: string | null;
  /** `replace` (default) or `upsert`: merge a table value into the table already there. */
  mergeStrategy?: MergeStrategy;
  /** Load the config with these options after the write; the status says whether a higher layer hides the value. */
  check?: LoadConfigOptions;
}

export interface WriteConfigResult {
  /** `okOverridden`: written, but a higher layer (see `check`) still sets the key. */
  status: 'ok' | 'okOverridden';
  /** The version of the file as written: pass it as the next write's `expectedVersion`. */
  version: string;
  filePath: string;
  /** False when the file already said so (nothing was written). */
  changed: boolean;
  /** With okOverridden: what hides the value, for people. */
  overriddenMetadata: { message: string; origin: string } | null;
  /** Unknown keys in the file as written (a typo in the key path shows up here). */
  warnings: string[];
}

/** Sets `keyPath` (dotted; quoted segments allowed) to a JSON value; `null` removes the key. */
export async function writeConfigValue(
  file: string,
  keyPath: string,
  value: unknown,
  opts: WriteConfigOptions = {},
): Promise<WriteConfigResult> {
  const path = parseWritePath(keyPath);
  if (value === null || value === undefined) return editConfigFile(file, path, null, opts);
  const strategy = opts.mergeStrategy ?? 'replace';
  const result = await editConfigFile(file, path, { value, strategy }, opts);
  return opts.check === undefined ? result : withOverride(result, file, path, value, opts.check);
}

/** Removes `keyPath` (a key, or a whole table) from the file; nothing happens when it is not there. */
export function deleteConfigValue(
  file: string,
  keyPath: string,
  opts: Omit<WriteConfigOptions, 'mergeStrategy' | 'check'> = {},
): Promise<WriteConfigResult> {
  return editConfigFile(file, parseWritePath(keyPath), null, opts);
}

/**
 * Records in WEFT_HOME/config.toml whether the project at `root` (realpath'd here) is trusted. Trusting
 * also records `accepted` (path from the root → `sha256:<hex>`) into `trusted_files`, keeping the files
 * accepted before; untrusting forgets them all. Two writes, trust first: if the second never happens,
 * the project is trusted with no record of files, so every file is asked about again (never applied unseen).
 */
export async function setProjectTrust(
  weftHome: string,
  root: string,
  level: TrustLevel,
  accepted: Readonly<Record<string, string>> = {},
): Promise<WriteConfigResult> {
  const project = await realpathOr(root);
  const file = userConfigFile(weftHome);
  const trust = await writeConfigValue(file, formatKeyPath(['projects', project, 'trust_level']), level);
  const filesKey = formatKeyPath(['projects', project, 'trusted_files']);
  const next =
    level === 'trusted'
      ? await writeConfigValue(
          file,
          filesKey,
          { ...accepted },
          { mergeStrategy: 'upsert', expectedVersion: trust.version },
        )
      : await deleteConfigValue(file, filesKey, { expectedVersion: trust.version });
  return { ...next, changed: trust.changed || next.changed, warnings: [...trust.warnings, ...next.warnings] };
}

/**
 * Checks one key and value on their own, as a write would put them: throws ConfigError for an
 * unknown key (with a suggestion) or a bad value (with the allowed values). `-c`-style checks for UIs and the CLI.
 */
export function validateConfigValue(keyPath: string, value: unknown): void {
  const path = parseWritePath(keyPath);
  const doc: TomlDocument = {};
  setPath(doc, path, value);
  const place = { at: 'not written', atLine: 'not written' };
  const layer: ConfigLayer = {
    source: 'override',
    file: null,
    doc,
    place: () => place,
    origin: () => '',
    originPlace: () => '',
  };
  const [unknown] = checkLayer(layer).warnings;
  if (unknown !== undefined) throw new ConfigError(unknown);
}

function parseWritePath(keyPath: string): string[] {
  const path = parseKeyPath(keyPath);
  if (path === null) {
    throw new ConfigError(
      `"${keyPath}" is not a key path; write dotted keys such as sandbox_workspace_write.network_access or projects."/my project".trust_level`,
    );
  }
  if (path.includes(UNSAFE_KEY)) throw new ConfigError(`"${UNSAFE_KEY}" cannot be used as a key`);
  return path;
}

async function editConfigFile(
  file: string,
  path: string[],
  set: { value: unknown; strategy: MergeStrategy } | null,
  opts: { expectedVersion?: string | null },
): Promise<WriteConfigResult> {
  const target = await realpath(file).catch(() => file);
  const { text, mode } = await readExisting(target, file);
  const version = configVersion(text);
  if (opts.expectedVersion !== undefined && opts.expectedVersion !== null && opts.expectedVersion !== version) {
    throw new ConfigError(`${file}: config.toml changed since it was read; reload and try again`, { file });
  }
  const before = fileLayer('user', file, text);
  const key = formatKeyPath(path);
  const intended = cloneDocument(before.doc);
  if (set === null) deletePath(intended, path);
  else applySet(intended, path, set.value, set.strategy);
  const refused = new ConfigError(
    `${file}: \`${key}\` could not be written without changing other settings; the file was not changed. Edit it by hand`,
    { file },
  );
  let edited: string;
  try {
    edited = set === null ? deleteInText(text, path) : setInText(text, path, set.value, set.strategy);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw refused;
    throw new ConfigError(`${file}: \`${key}\` was not written: ${error.message}`, { file });
  }
  if (!sameDocument(parseOrNull(edited), intended)) throw refused;
  const after = fileLayer('user', file, edited);
  const warnings = checkedWarnings(before, after, file);
  if (edited === text)
    return { status: 'ok', version, filePath: file, changed: false, overriddenMetadata: null, warnings };
  await writeAtomically(target, file, edited, mode);
  return {
    status: 'ok',
    version: configVersion(edited),
    filePath: file,
    changed: true,
    overriddenMetadata: null,
    warnings,
  };
}

/** The new text's unknown-key warnings; refuses (ConfigError) a value that makes a valid file invalid. */
function checkedWarnings(
  before: ReturnType<typeof fileLayer>,
  after: ReturnType<typeof fileLayer>,
  file: string,
): string[] {
  let wasValid = true;
  try {
    checkLayer(before);
  } catch {
    wasValid = false;
  }
  try {
    return checkLayer(after).warnings;
  } catch (error) {
    if (!wasValid || !(error instanceof ConfigError)) return [];
    throw new ConfigError(`${error.message}\n${file} was not changed.`, {
      file,
      line: error.line,
      column: error.column,
      excerpt: error.excerpt,
    });
  }
}

async function readExisting(target: string, file: string): Promise<{ text: string; mode: number | null }> {
  try {
    const [text, info] = await Promise.all([readFile(target, 'utf8'), stat(target)]);
    return { text, mode: info.mode & 0o7777 };
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : null;
    if (code === 'ENOENT') return { text: '', mode: null };
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${file}: cannot read the config file (${reason}); check that it is a readable file`, {
      file,
    });
  }
}

/** Temp file in the same folder, flushed, then renamed over the target. New files are private (0600). */
async function writeAtomically(target: string, file: string, text: string, mode: number | null): Promise<void> {
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, mode ?? 0o600);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${file}: cannot write the config file (${reason}); check that its folder is writable`, {
      file,
    });
  }
}

async function withOverride(
  result: WriteConfigResult,
  file: string,
  path: string[],
  value: unknown,
  check: LoadConfigOptions,
): Promise<WriteConfigResult> {
  let origins: Map<string, string>;
  try {
    origins = (await loadConfig(check)).origins;
  } catch {
    return result; // The write stands; the config's problem is reported where it is loaded.
  }
  const leaves = isTable(value) ? leafPaths(value).map((leaf) => [...path, ...leaf]) : [path];
  for (const leaf of leaves) {
    const key = formatKeyPath(leaf);
    const origin = origins.get(key);
    if (origin !== undefined && origin !== file && origin !== 'default') {
      return {
        ...result,
        status: 'okOverridden',
        overriddenMetadata: {
          message: `\`${key}\` was written to ${file}, but ${origin} sets it too and wins`,
          origin,
        },
      };
    }
  }
  return result;
}

function parseOrNull(text: string): TomlDocument | null {
  try {
    return parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    return null;
  }
}

/** Equal as TOML documents, where an empty table counts as absent (dotted keys leave none behind). */
function sameDocument(a: unknown, b: unknown): boolean {
  return equal(pruned(a), pruned(b));
}

function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruned);
  if (!isTable(value)) return value;
  const out: TomlDocument = {};
  for (const [key, item] of Object.entries(value)) {
    const kept = pruned(item);
    if (!(isTable(kept) && Object.keys(kept).length === 0)) out[key] = kept;
  }
  return out;
}

function equal(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.toISOString() === b.toISOString();
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i]));
  if (isTable(a) || isTable(b)) {
    if (!isTable(a) || !isTable(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]));
  }
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
}
