/**
 * Reading a project's `.weft/config.toml` files and deciding which of them apply. A file applies only
 * when the project is trusted and the file's bytes hash to what the user accepted (`trusted_files`):
 * the model can write files in the workspace, so a file that appeared or changed since then is held
 * back and described (which keys it sets, to what) until the user says yes. The bytes are read once:
 * the text that is hashed is the text that is parsed.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { ConfigError } from './errors';
import { getPath, isTable, leafPaths } from './document';
import { fileLayer } from './layers';
import type { ConfigLayer } from './layers';
import { redactDocument } from './redact';
import type { TRUST_LEVELS } from './schema';
import { formatKeyPath } from './toml-keys';
import { tomlValue } from './toml-value';

/** What the user recorded about one project (`[projects."<root>"]`). */
export interface TrustRecord {
  level: (typeof TRUST_LEVELS)[number] | null;
  /**
   * The project config files the user accepted: path relative to the root → `sha256:<hex>` of its
   * bytes. Null when the project was trusted before Weft recorded files (every file is then asked about once).
   */
  files: Readonly<Record<string, string>> | null;
}

/**
 * Why a file applies or not. `applied`: accepted as it is. `new`: never accepted (or the project was
 * never trusted). `changed`: accepted with other contents. `unverified`: the project was trusted before
 * Weft recorded file contents, so the user confirms each file once. `ignored`: the project is untrusted.
 */
export type ProjectFileStatus = 'applied' | 'new' | 'changed' | 'unverified' | 'ignored';

/** One key a project file sets, for people: `mcp_servers.x.command` = `"node"`. */
export interface ProjectSetting {
  /** Dotted key path. */
  key: string;
  /** The value as TOML (secrets redacted, long values shortened). */
  value: string;
  /** The key decides what runs, how it is contained, or where requests go (sandbox, approvals, MCP servers…). */
  steersExecution: boolean;
}

export interface ProjectConfigFile {
  /** Absolute path of the file. */
  path: string;
  /** Path from the project root, `/`-separated: the key of `trusted_files`. */
  relativePath: string;
  /** `sha256:<hex>` of the file's bytes as read. */
  sha256: string;
  status: ProjectFileStatus;
  /** The keys the file sets, those that steer execution first (at most `MAX_SETTINGS`). */
  settings: ProjectSetting[];
  /** How many more keys the file sets beyond `settings`. */
  moreSettings: number;
  /** A TOML syntax error that keeps the file from being read; null when it parses. */
  error: string | null;
}

/**
 * A read project file: what people are shown, and the parsed layer, or the syntax error that kept it
 * from parsing (loading fails with it when the file applies, as for any config file).
 */
export type ReadProjectFile = { info: ProjectConfigFile } & (
  { layer: ConfigLayer; parseError: null } | { layer: null; parseError: ConfigError }
);

/** Settings listed per file; the rest are counted. */
export const MAX_SETTINGS = 40;
const MAX_VALUE_CHARS = 200;

/** Top-level keys whose values decide what runs outside the model's words, how it is contained, or where data goes. */
const STEERING_KEYS = new Set([
  'sandbox_mode',
  'approval_policy',
  'sandbox_workspace_write',
  'shell_environment_policy',
  'mcp_servers',
  'notify',
  'worktree',
  'model_provider',
  'model_providers',
  'profile',
  'profiles',
]);

/** Keys a project file may not set: they are dropped when the file is applied, so they are not listed. */
const DROPPED_KEYS = new Set(['projects', 'project_root_markers']);

/** `sha256:<hex>` of `bytes`. */
export function contentHash(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The `trusted_files` key of `path` in the project at `root`. */
export function relativeKey(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/**
 * The `.weft` folders holding the files of a trusted project's record, wherever they are below the
 * root (see `ProjectTrust.trustedConfigDirs`). Keys that do not name a file in a `.weft` folder inside
 * the root are left out.
 */
export function trustedConfigDirs(root: string, record: TrustRecord): string[] {
  if (record.level !== 'trusted' || record.files === null) return [];
  const dirs = Object.keys(record.files).map((key) => dirname(join(root, key)));
  return [...new Set(dirs)].filter((dir) => {
    const rel = relative(root, dir);
    return basename(dir) === '.weft' && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  });
}

function statusOf(record: TrustRecord, key: string, hash: string): ProjectFileStatus {
  if (record.level === 'untrusted') return 'ignored';
  if (record.level === null) return 'new';
  if (record.files === null) return 'unverified';
  const accepted = record.files[key];
  if (accepted === undefined) return 'new';
  return accepted === hash ? 'applied' : 'changed';
}

/**
 * Reads each file once and says whether it applies. A file that vanished since it was found is left
 * out; one that cannot be read fails (ConfigError) when the project is trusted, as any config file
 * that cannot be read does, and is left out otherwise.
 */
export async function readProjectFiles(
  root: string,
  paths: readonly string[],
  record: TrustRecord,
): Promise<ReadProjectFile[]> {
  const out: ReadProjectFile[] = [];
  for (const path of paths) {
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : null;
      if (code === 'ENOENT' || record.level !== 'trusted') continue;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ConfigError(`${path}: cannot read the config file (${reason}); check that it is a readable file`, {
        file: path,
      });
    }
    const sha256 = contentHash(bytes);
    const key = relativeKey(root, path);
    const info = { path, relativePath: key, sha256, status: statusOf(record, key, sha256) };
    try {
      const layer = fileLayer('project', path, bytes.toString('utf8'));
      out.push({ info: { ...info, ...describeSettings(layer), error: null }, layer, parseError: null });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const described = { settings: [], moreSettings: 0, error: error.message };
      out.push({ info: { ...info, ...described }, layer: null, parseError: error });
    }
  }
  return out;
}

/** The keys a layer sets, as people read them: those that steer execution first, then by key. */
export function describeSettings(layer: ConfigLayer): { settings: ProjectSetting[]; moreSettings: number } {
  const redacted = redactDocument(layer.doc);
  const all = leafPaths(isTable(redacted) ? redacted : {})
    .filter((path) => !DROPPED_KEYS.has(path[0] ?? ''))
    .map((path) => ({
      key: formatKeyPath(path),
      value: shorten(tomlValue(getPath(redacted, path))),
      steersExecution: STEERING_KEYS.has(path[0] ?? ''),
    }))
    .sort((a, b) =>
      a.steersExecution !== b.steersExecution
        ? a.steersExecution
          ? -1
          : 1
        : a.key < b.key
          ? -1
          : a.key > b.key
            ? 1
            : 0,
    );
  return { settings: all.slice(0, MAX_SETTINGS), moreSettings: Math.max(0, all.length - MAX_SETTINGS) };
}

function shorten(text: string): string {
  return text.length <= MAX_VALUE_CHARS ? text : `${text.slice(0, MAX_VALUE_CHARS - 1)}…`;
}
