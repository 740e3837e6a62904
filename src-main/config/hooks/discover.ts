/**
 * Finding a session's hooks: `hooks.json` beside each config layer and the `[hooks]` tables of its
 * config.toml — the user's (WEFT_HOME; then Codex's home when the user's config.toml says `[codex]
 * read_config = true`) and, in a trusted project, each `.weft/` from the project root down
 * to the cwd (a config.toml only when it applies, as accepted; `hooks.json` when the project is trusted).
 * Every hook, wherever it comes from, runs only once the user trusted it as it is (its hash is recorded in
 * the user's config.toml, `[hooks.state."<key>"]`, which a project cannot set). A table or entry that does
 * not parse is skipped and reported with its file and key; the others are still read.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import type { z } from 'zod';
import type { HookErrorInfo, HookSource, HookTrustStatus } from '../../../src-preload/protocol';
import { userConfigFile } from '../home';
import { PROJECT_CONFIG_DIR, realpathOr } from '../project';
import type { ProjectTrust } from '../project';
import { formatKeyPath } from '../toml-keys';
import { hookHash, hookKey } from './identity';
import {
  DEFAULT_HOOK_TIMEOUT_SEC,
  groupSchema,
  hookStateSchema,
  isHookEvent,
  type HookAction,
  type HookEvent,
  type HookState,
} from './schema';

export const HOOKS_JSON = 'hooks.json';

/** One configured hook, as a session runs it and a list shows it. */
export interface ConfiguredHook {
  key: string;
  event: HookEvent;
  matcher: string | null;
  action: HookAction;
  timeoutSec: number;
  async: boolean;
  statusMessage: string | null;
  sourcePath: string;
  source: Extract<HookSource, 'user' | 'project'>;
  /** Position among all the hooks found, in reading order. */
  displayOrder: number;
  currentHash: string;
  trustStatus: HookTrustStatus;
  enabled: boolean;
}

export interface DiscoveredHooks {
  hooks: ConfiguredHook[];
  errors: HookErrorInfo[];
  warnings: string[];
}

export interface DiscoverHooksOptions {
  weftHome: string;
  cwd: string;
  /** Where Codex's home is found (`CODEX_HOME`, else `HOME`/.codex) when `[codex] read_config = true`. */
  env: NodeJS.ProcessEnv;
  /** The cwd's project as the config loader saw it (which files applied, whether it is trusted). */
  projectTrust: Pick<ProjectTrust, 'root' | 'trusted' | 'files'>;
}

interface Source {
  path: string;
  source: ConfiguredHook['source'];
  /** The `hooks` value (config.toml's table or hooks.json's `hooks`), unparsed. */
  hooks: unknown;
  /** How a key inside it is named in errors. */
  keyPrefix: readonly string[];
}

export async function discoverHooks(opts: DiscoverHooksOptions): Promise<DiscoveredHooks> {
  const errors: HookErrorInfo[] = [];
  const warnings: string[] = [];
  const userToml = userConfigFile(opts.weftHome);
  const userDoc = await readToml(userToml, errors);
  const states = hookStates(userDoc, userToml, errors);
  const sources: Source[] = [];
  const addDir = async (
    dir: string,
    source: Source['source'],
    toml: Record<string, unknown> | null,
    tomlPath: string,
  ) => {
    const json = await readJson(join(dir, HOOKS_JSON), errors);
    const tomlHooks = toml === null ? undefined : eventTables(toml['hooks']);
    if (json !== undefined) sources.push({ path: join(dir, HOOKS_JSON), source, hooks: json, keyPrefix: ['hooks'] });
    if (tomlHooks !== undefined) sources.push({ path: tomlPath, source, hooks: tomlHooks, keyPrefix: ['hooks'] });
    if (json !== undefined && tomlHooks !== undefined && Object.keys(tomlHooks).length > 0)
      warnings.push(
        `hooks are set in both ${join(dir, HOOKS_JSON)} and ${tomlPath}; both are read (prefer one of them per folder)`,
      );
  };
  await addDir(opts.weftHome, 'user', userDoc, userToml);
  const codexHome = readsCodexConfig(userDoc) ? await codexHomeOf(opts.env, opts.weftHome) : null;
  if (codexHome !== null) {
    const codexToml = join(codexHome, 'config.toml');
    await addDir(codexHome, 'user', await readToml(codexToml, errors), codexToml);
  }
  const project = opts.projectTrust;
  if (project.trusted === true) {
    const applied = new Set(project.files.filter((f) => f.status === 'applied').map((f) => f.path));
    for (const dir of await projectConfigDirs(project.root, opts.cwd, opts.weftHome)) {
      const tomlPath = join(dir, 'config.toml');
      const toml = applied.has(tomlPath) ? await readToml(tomlPath, errors) : null;
      await addDir(dir, 'project', toml, tomlPath);
    }
  }
  const hooks: ConfiguredHook[] = [];
  for (const s of sources) {
    for (const found of readSource(s, errors)) {
      const currentHash = hookHash(found);
      const state = states.get(found.key) ?? {};
      hooks.push({
        ...found,
        displayOrder: hooks.length,
        currentHash,
        trustStatus: trustOf(state, currentHash),
        enabled: state.enabled ?? true,
      });
    }
  }
  return { hooks, errors, warnings };
}

/** How a hook's action is shown to people: the command, or `mcp_tool <server>/<tool> <input>`. */
export function hookActionLabel(action: HookAction): string {
  return action.type === 'command'
    ? action.command
    : `mcp_tool ${action.server}/${action.tool} ${JSON.stringify(action.input)}`;
}

/** `[codex] read_config = true` in the user's config.toml (a project cannot set it). */
function readsCodexConfig(userDoc: Record<string, unknown> | null): boolean {
  const codex = userDoc?.['codex'];
  return isRecord(codex) && codex['read_config'] === true;
}

/** Codex's home: `CODEX_HOME`, else `~/.codex`; null when it is WEFT_HOME itself (already read). */
async function codexHomeOf(env: NodeJS.ProcessEnv, weftHome: string): Promise<string | null> {
  const home = env['CODEX_HOME'] ?? join(env['HOME'] ?? homedir(), '.codex');
  return (await realpathOr(home)) === (await realpathOr(weftHome)) ? null : home;
}

function trustOf(state: HookState, hash: string): HookTrustStatus {
  if (state.trusted_hash === undefined) return 'untrusted';
  return state.trusted_hash === hash ? 'trusted' : 'modified';
}

/** config.toml's `[hooks]` without its `state` table (the event tables only). */
function eventTables(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const { state: _state, ...events } = value;
  return events;
}

function hookStates(
  doc: Record<string, unknown> | null,
  file: string,
  errors: HookErrorInfo[],
): Map<string, HookState> {
  const out = new Map<string, HookState>();
  const hooks = doc?.['hooks'];
  const state = isRecord(hooks) ? hooks['state'] : undefined;
  if (!isRecord(state)) return out;
  for (const [key, value] of Object.entries(state)) {
    const parsed = hookStateSchema.safeParse(value);
    if (parsed.success) out.set(key, parsed.data);
    else errors.push(issueAt(file, ['hooks', 'state', key], parsed.error));
  }
  return out;
}

type FoundHook = Omit<ConfiguredHook, 'displayOrder' | 'currentHash' | 'trustStatus' | 'enabled'>;

function readSource(s: Source, errors: HookErrorInfo[]): FoundHook[] {
  if (!isRecord(s.hooks)) {
    errors.push({ path: s.path, message: `${formatKeyPath(s.keyPrefix)} must be a table of events` });
    return [];
  }
  const out: FoundHook[] = [];
  for (const [event, groups] of Object.entries(s.hooks)) {
    const at = [...s.keyPrefix, event];
    if (!isHookEvent(event)) {
      errors.push({
        path: s.path,
        message: `${formatKeyPath(at)}: "${event}" is not a hook event; use one of SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact, SubagentStart, SubagentStop, Stop, Interrupt`,
      });
      continue;
    }
    if (!Array.isArray(groups)) {
      errors.push({ path: s.path, message: `${formatKeyPath(at)} must be a list of {matcher, hooks} groups` });
      continue;
    }
    groups.forEach((raw: unknown, g) => {
      const parsed = groupSchema.safeParse(raw);
      if (!parsed.success) {
        errors.push(issueAt(s.path, [...at, g], parsed.error));
        return;
      }
      const matcher = parsed.data.matcher ?? null;
      if (matcher !== null && !validRegex(matcher)) {
        errors.push({
          path: s.path,
          message: `${formatKeyPath([...at, g, 'matcher'])}: "${matcher}" is not a regular expression`,
        });
        return;
      }
      parsed.data.hooks.forEach((handler, h) => {
        out.push({
          key: hookKey(s.path, event, g, h),
          event,
          matcher,
          action:
            handler.type === 'command'
              ? { type: 'command', command: handler.command }
              : { type: 'mcpTool', server: handler.server, tool: handler.tool, input: handler.input ?? {} },
          timeoutSec: handler.timeout ?? handler.timeoutSec ?? DEFAULT_HOOK_TIMEOUT_SEC,
          async: handler.async ?? false,
          statusMessage: handler.statusMessage ?? null,
          sourcePath: s.path,
          source: s.source,
        });
      });
    });
  }
  return out;
}

function validRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

function issueAt(path: string, at: readonly (string | number)[], error: z.ZodError): HookErrorInfo {
  const issue = error.issues[0];
  const where = formatKeyPath([...at, ...(issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p))]);
  return { path, message: `${where}: ${issue?.message ?? 'is not valid'}` };
}

/** The `.weft/` folders from the project root down to the cwd, root first (WEFT_HOME's own is not one). */
async function projectConfigDirs(root: string, cwd: string, weftHome: string): Promise<string[]> {
  const home = await realpathOr(weftHome);
  const dirs: string[] = [];
  for (let dir = await realpathOr(cwd); ; dir = dirname(dir)) {
    const configDir = join(dir, PROJECT_CONFIG_DIR);
    if ((await realpathOr(configDir)) !== home) dirs.unshift(configDir);
    if (dir === root || dirname(dir) === dir) break;
  }
  return dirs;
}

async function readText(file: string, errors: HookErrorInfo[]): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : null;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      errors.push({
        path: file,
        message: `cannot be read (${error instanceof Error ? error.message : String(error)})`,
      });
    return null;
  }
}

async function readToml(file: string, errors: HookErrorInfo[]): Promise<Record<string, unknown> | null> {
  const text = await readText(file, errors);
  if (text === null) return null;
  try {
    return parse(text);
  } catch (error) {
    errors.push({
      path: file,
      message: `is not valid TOML: ${error instanceof Error ? error.message : String(error)}`,
    });
    return null;
  }
}

/** hooks.json's `hooks` value; undefined when there is no file (or it cannot be read, which is reported). */
async function readJson(file: string, errors: HookErrorInfo[]): Promise<unknown> {
  const text = await readText(file, errors);
  if (text === null) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    errors.push({
      path: file,
      message: `is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    });
    return undefined;
  }
  if (!isRecord(doc) || !('hooks' in doc)) {
    errors.push({ path: file, message: 'must be an object with a "hooks" table of events' });
    return undefined;
  }
  return doc['hooks'];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
