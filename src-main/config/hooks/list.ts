// The hooks of a folder as `hooks/list` and `weft hooks list` show them (Codex's HooksListEntry), read
// from the files as they are now.
import type { HookMetadata, HooksListEntry } from '../../../src-preload/protocol';
import { projectState } from '../load';
import { discoverHooks, type ConfiguredHook, type DiscoveredHooks } from './discover';
import { wireEventName } from './schema';

export interface ListHooksOptions {
  weftHome: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** The hooks found for `cwd` (the user's, and its project's when the project is trusted). */
export async function hooksOf(opts: ListHooksOptions): Promise<DiscoveredHooks> {
  const project = await projectState({ weftHome: opts.weftHome, cwd: opts.cwd, env: opts.env });
  return discoverHooks({
    weftHome: opts.weftHome,
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    projectTrust: {
      root: project.root,
      trusted: project.record.level === null ? null : project.record.level === 'trusted',
      files: project.files.map((f) => f.info),
    },
  });
}

export function hookMetadata(hook: ConfiguredHook): HookMetadata {
  return {
    key: hook.key,
    eventName: wireEventName(hook.event),
    handlerType: hook.action.type,
    command: hook.action.type === 'command' ? hook.action.command : null,
    weftMcpTool:
      hook.action.type === 'mcpTool'
        ? { server: hook.action.server, tool: hook.action.tool, input: hook.action.input }
        : null,
    async: hook.async,
    matcher: hook.matcher,
    timeoutSec: hook.timeoutSec,
    statusMessage: hook.statusMessage,
    sourcePath: hook.sourcePath,
    source: hook.source,
    displayOrder: hook.displayOrder,
    enabled: hook.enabled,
    isManaged: false,
    currentHash: hook.currentHash,
    trustStatus: hook.trustStatus,
  };
}

export function hooksListEntry(cwd: string, found: DiscoveredHooks): HooksListEntry {
  return { cwd, hooks: found.hooks.map(hookMetadata), warnings: found.warnings, errors: found.errors };
}
