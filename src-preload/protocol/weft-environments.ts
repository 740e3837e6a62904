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
  }),
);
export type WeftEnvironmentStatusNotification = z.infer<typeof WeftEnvironmentStatusNotification>;

/** In `initialize`'s result when a relay answers: the environment, and the relay's own version. */
export const WeftEnvironmentInfo = lazySchema(() =>
  z.object({
    name: z.string(),
    relayVersion: z.string(),
  }),
);
export type WeftEnvironmentInfo = z.infer<typeof WeftEnvironmentInfo>;
