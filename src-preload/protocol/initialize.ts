// The handshake: `initialize` request, then the client's `initialized` notification.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentInfo } from './weft-environments';

/** Who is connecting. `name` identifies the client program; `title` is for display. */
export const ClientInfo = lazySchema(() =>
  z.object({
    name: z.string(),
    title: z.string().nullish(),
    version: z.string(),
  }),
);
export type ClientInfo = z.infer<typeof ClientInfo>;

/**
 * `experimentalApi` omitted = false. `optOutNotificationMethods`: exact notification method names this
 * connection never receives (no wildcards; unknown names are ignored). Weft: `weftLazyTurnDiff` true sends
 * `weft/turn/diffChanged` (no diff text; read it with `weft/turn/diff`) where `turn/diff/updated` would go.
 */
export const InitializeCapabilities = lazySchema(() =>
  z.object({
    experimentalApi: z.boolean().nullish(),
    optOutNotificationMethods: z.array(z.string()).nullish(),
    weftLazyTurnDiff: z.boolean().nullish(),
  }),
);
export type InitializeCapabilities = z.infer<typeof InitializeCapabilities>;

export const InitializeParams = lazySchema(() =>
  z.object({
    clientInfo: ClientInfo,
    capabilities: InitializeCapabilities.nullish(),
  }),
);
export type InitializeParams = z.infer<typeof InitializeParams>;

export const PlatformFamily = lazySchema(() => z.enum(['unix', 'windows']));
export type PlatformFamily = z.infer<typeof PlatformFamily>;

export const PlatformOs = lazySchema(() => z.enum(['macos', 'linux', 'windows']));
export type PlatformOs = z.infer<typeof PlatformOs>;

/**
 * `codexHome` holds the server's home directory (WEFT_HOME for Weft). Weft adds `weftVersion` (the
 * server's version; absent from other servers and from Weft before 0.1) and, when a relay to a remote
 * environment answers, `weftEnvironment` (its name and the relay's version).
 */
export const InitializeResult = lazySchema(() =>
  z.object({
    userAgent: z.string(),
    codexHome: z.string(),
    platformFamily: PlatformFamily,
    platformOs: PlatformOs,
    weftVersion: z.string().nullish(),
    weftEnvironment: WeftEnvironmentInfo.nullish(),
  }),
);
export type InitializeResult = z.infer<typeof InitializeResult>;
