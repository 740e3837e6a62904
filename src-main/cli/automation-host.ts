// The automations' scheduler in a host the CLI serves (`weft serve`, `weft app-server`).
import { resolveWeftHome } from '../config';
import { withAutomationScheduler, type SchedulingHost } from '../faces/automation-scheduler';
import type { OpenEnvironment } from '../faces/automation-executor';
import { openRemoteHost } from './environment-host';

/** The relay to an environment of config.toml, for runs of automations with a `remote`. */
export const openEnvironment: OpenEnvironment = async (name, options) => (await openRemoteHost(name, options)).host;

/** `withAutomationScheduler` for a CLI host: WEFT_HOME from the environment, the log on stderr. */
export function scheduleAutomationsIn<H extends SchedulingHost>(app: H): Promise<H> {
  return withAutomationScheduler(app, {
    weftHome: resolveWeftHome(process.env),
    log: (line) => process.stderr.write(`${line}\n`),
    openEnvironment,
  });
}
