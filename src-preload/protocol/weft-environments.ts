// Remote environments (`[environments.NAME]`): what a relay to a remote app server tells its client
// about the link (`weft/environment/status`), and what `initialize` says about versions on each side.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/**
 * The link to a remote environment: `connected` (again, after `reconnecting`; `replayed` counts the
 * notifications made up from the remote's threads for what happened meanwhile), `reconnecting` (the pipe
 * dropped; `attempt` counts from 1, `message` says why), `disconnected` (the relay gave up; requests fail).
 */
export const WeftEnvironmentStatusNotification = lazySchema(() =>
  z.object({
    environment: z.string(),
    state: z.enum(['connected', 'reconnecting', 'disconnected']),
    attempt: z.int().min(0),
    message: z.string().nullable(),
    replayed: z.int().min(0).nullish(),
    /**
     * Weft: the last attempt found no Weft there, or one that cannot serve this one: installing `localVersion`
     * there (`weft/environment/install`) would cure it, as in `WeftInstallableData`.
     */
    weftInstall: WeftInstallOffer.nullish(),
  }),
);

/** What an environment needs installed: this Weft (`localVersion`); `remoteVersion` is what runs there, null when none answered. */
export const WeftInstallOffer = lazySchema(() =>
  z.object({
    environment: z.string(),
    remoteVersion: z.string().nullable(),
    localVersion: z.string(),
  }),
);
export type WeftInstallOffer = z.infer<typeof WeftInstallOffer>;
export type WeftEnvironmentStatusNotification = z.infer<typeof WeftEnvironmentStatusNotification>;

/** In `initialize`'s result when a relay answers: the environment, and the relay's own version. */
export const WeftEnvironmentInfo = lazySchema(() =>
  z.object({
    name: z.string(),
    relayVersion: z.string(),
  }),
);
export type WeftEnvironmentInfo = z.infer<typeof WeftEnvironmentInfo>;

/**
 * Weft, on the requests a host that reaches environments routes by name (`thread/start`, `thread/list`,
 * `thread/resume`, `thread/read`, `weft/fs/complete`): the configured environment (`[environments.NAME]`)
 * the request is for; absent or null = this machine (or, for a thread, wherever the host saw it). A host
 * that reaches no environments refuses a request that names one.
 */
export const WeftEnvironmentName = lazySchema(() =>
  z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "an environment's name is letters, digits, '.', '_' and '-'")
    .max(64)
    .nullish(),
);

export const WeftEnvironmentListParams = lazySchema(() => z.object({}).default({}));
export type WeftEnvironmentListParams = z.infer<typeof WeftEnvironmentListParams>;

/** A configured environment: reached by ssh (`destination` is ssh's host) or by a command (`destination` null). */
export const WeftEnvironmentEntry = lazySchema(() =>
  z.object({
    name: z.string(),
    kind: z.enum(['ssh', 'command']),
    destination: z.string().nullable(),
  }),
);
export type WeftEnvironmentEntry = z.infer<typeof WeftEnvironmentEntry>;

/** The environments of the host's config.toml, by name. */
export const WeftEnvironmentListResult = lazySchema(() => z.object({ data: z.array(WeftEnvironmentEntry) }));
export type WeftEnvironmentListResult = z.infer<typeof WeftEnvironmentListResult>;

/**
 * Weft, the `data` of the error a relay answers a request with when the link to its environment dropped
 * before the remote answered (the request may have run there; a process it started there, such as a
 * terminal's shell, ended with the link, the remote's processes being its connection's). `notKept`: the
 * process was started to outlive the link (`weftKeepKey`), but the remote had not kept it when the link
 * came back (it restarted, or the grace period passed).
 */
export const WeftLinkDroppedData = lazySchema(() =>
  z.object({ weftLinkDropped: z.object({ environment: z.string(), notKept: z.literal(true).optional() }) }),
);
export type WeftLinkDroppedData = z.infer<typeof WeftLinkDroppedData>;

/**
 * Weft, the `data` of the error a relay answers with when the environment has no Weft, or one that cannot
 * serve this one (`remoteVersion`: what runs there, null when none answered): the client may offer to
 * install `localVersion` there (`weft/environment/install`).
 */
export const WeftInstallableData = lazySchema(() => z.object({ weftInstall: WeftInstallOffer }));
export type WeftInstallableData = z.infer<typeof WeftInstallableData>;

/**
 * Weft: installs this host's Weft on a configured environment (the package `npm pack` makes of it,
 * copied over the environment's pipe, installed with npm under `~/.weft/remote/<version>` there), then
 * points the environment at it in config.toml (`weft`, or `command`). Progress comes as
 * `weft/environment/install/progress`; `weft/environment/install/cancel` stops it. One install per
 * environment at a time.
 */
export const WeftEnvironmentInstallParams = lazySchema(() =>
  z.object({
    environment: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "an environment's name is letters, digits, '.', '_' and '-'")
      .max(64),
  }),
);
export type WeftEnvironmentInstallParams = z.infer<typeof WeftEnvironmentInstallParams>;

/** What was installed, where, and what config.toml now says (`key` of `[environments.NAME]`, its new value). */
export const WeftEnvironmentInstallResult = lazySchema(() =>
  z.object({
    version: z.string(),
    directory: z.string(),
    node: z.string(),
    configFile: z.string(),
    key: z.enum(['weft', 'command']),
    value: z.union([z.string(), z.array(z.string())]),
  }),
);
export type WeftEnvironmentInstallResult = z.infer<typeof WeftEnvironmentInstallResult>;

export const WeftEnvironmentInstallCancelParams = WeftEnvironmentInstallParams;
export type WeftEnvironmentInstallCancelParams = WeftEnvironmentInstallParams;

/** Whether an install was running (and is now stopped). */
export const WeftEnvironmentInstallCancelResult = lazySchema(() => z.object({ cancelled: z.boolean() }));
export type WeftEnvironmentInstallCancelResult = z.infer<typeof WeftEnvironmentInstallCancelResult>;

/** A step of an install (`pack`, `node`, `upload`, `install`, `verify`, `config`) and a line about it. */
export const WeftEnvironmentInstallProgressNotification = lazySchema(() =>
  z.object({
    environment: z.string(),
    stage: z.enum(['pack', 'node', 'upload', 'install', 'verify', 'config']),
    message: z.string(),
  }),
);
export type WeftEnvironmentInstallProgressNotification = z.infer<typeof WeftEnvironmentInstallProgressNotification>;
