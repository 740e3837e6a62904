// Weft's project config requests (not in Codex's protocol). A project's `.weft/config.toml` files apply
// only once the user has trusted the project and accepted each file as it is: the model can write
// files in the workspace, so a file that is new or changed since then waits (and is described) until a
// client lists it and the user accepts it.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/** `cwd`: the folder a thread would work in (default: the server's project); files from its project root down to it count. */
export const WeftProjectConfigListParams = lazySchema(() => z.object({ cwd: z.string().nullish() }).default({}));
export type WeftProjectConfigListParams = z.infer<typeof WeftProjectConfigListParams>;

/**
 * `applied`: accepted as it is. `new`: never accepted, or the project was never trusted. `changed`:
 * accepted with other contents. `unverified`: the project was trusted before Weft recorded file
 * contents (confirm once). `ignored`: the project is marked untrusted. Every status but `applied` means
 * the file does not apply to threads started now; `new`, `changed` and `unverified` wait for the user.
 */
export const WeftProjectConfigStatus = lazySchema(() => z.enum(['applied', 'new', 'changed', 'unverified', 'ignored']));
export type WeftProjectConfigStatus = z.infer<typeof WeftProjectConfigStatus>;

export const WeftProjectConfigSetting = lazySchema(() =>
  z.object({
    /** Dotted key path, e.g. `mcp_servers.docs.command`. */
    key: z.string(),
    /** The value as TOML (secrets redacted, long values shortened). */
    value: z.string(),
    /** The key decides what runs, how it is sandboxed, or where requests go (sandbox, approvals, MCP servers, providers…). */
    steersExecution: z.boolean(),
  }),
);
export type WeftProjectConfigSetting = z.infer<typeof WeftProjectConfigSetting>;

export const WeftProjectConfigFile = lazySchema(() =>
  z.object({
    path: z.string(),
    /** From the project root, `/`-separated. */
    relativePath: z.string(),
    /** `sha256:<hex>` of the bytes listed: pass it back to accept exactly these contents. */
    sha256: z.string(),
    status: WeftProjectConfigStatus,
    /** What the file sets, steering keys first (at most 40); `moreSettings` counts the rest. */
    settings: z.array(WeftProjectConfigSetting),
    moreSettings: z.number().int().min(0),
    /** A TOML syntax error that keeps the file from being read; null when it parses. */
    error: z.string().nullable(),
  }),
);
export type WeftProjectConfigFile = z.infer<typeof WeftProjectConfigFile>;

export const WeftProjectConfigListResult = lazySchema(() =>
  z.object({
    /** The project root (realpath'd): the key of `[projects."<root>"]` in the user config. */
    root: z.string(),
    /** null: the user never decided. */
    trustLevel: z.enum(['trusted', 'untrusted']).nullable(),
    /** Every `.weft/config.toml` from the root down to `cwd`, root first. */
    files: z.array(WeftProjectConfigFile),
  }),
);
export type WeftProjectConfigListResult = z.infer<typeof WeftProjectConfigListResult>;

/**
 * Trust the project of `cwd` and accept `files` with the contents listed (`sha256` from
 * `weft/projectConfig/list`). A file whose contents changed since is refused (nothing is recorded):
 * list again and show the person what it says now. Files not named stay as they are.
 */
export const WeftProjectConfigTrustParams = lazySchema(() =>
  z.object({
    cwd: z.string().nullish(),
    files: z.array(z.object({ path: z.string(), sha256: z.string() })),
  }),
);
export type WeftProjectConfigTrustParams = z.infer<typeof WeftProjectConfigTrustParams>;

/** The project as it is after the change; threads started from now on get the accepted files. */
export const WeftProjectConfigTrustResult = WeftProjectConfigListResult;
export type WeftProjectConfigTrustResult = z.infer<typeof WeftProjectConfigTrustResult>;
