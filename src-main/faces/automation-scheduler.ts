// The scheduler of a running host (`weft serve`, `weft app-server`, the desktop app's main process): it
// runs automations through an in-process client of that host, so a run is a thread the app's clients see
// like any other. Of the hosts open on one WEFT_HOME, the one holding the scheduler's lock runs the
// schedule and the triggers (the others try again at each pass, so one takes over when it closes); every
// host runs its own Run now.
import { connectHostClient } from './host-client';
import type { ConnectionHost } from '../server/transport';
import { schedulerOwnership } from '../automations/lock';
import type { Automation } from '../automations/record';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { startScheduler, systemClock, type SchedulerClock } from '../automations/scheduler';
import { hostClientExecutor, type OpenEnvironment } from './automation-executor';

export interface SchedulingHost {
  readonly host: ConnectionHost;
  setAutomationRunNow(runNow: ((automation: Automation) => Promise<string | null>) | null): void;
  announceAutomationRun(automationId: string, runId: string): Promise<void>;
  close(): Promise<void>;
}

/** The same host, with the scheduler running until it closes (which stops the runs under way first). */
export async function withAutomationScheduler<H extends SchedulingHost>(
  app: H,
  options: {
    weftHome: string;
    log(line: string): void;
    clock?: SchedulerClock;
    /** How runs of automations with a `remote` reach it; omitted: those runs fail, saying so. */
    openEnvironment?: OpenEnvironment;
  },
): Promise<H> {
  const client = await connectHostClient(app.host, {
    label: 'automations',
    clientInfo: { name: 'weft-automations', title: 'Weft automations', version: VERSION },
    log: options.log,
  });
  const clock = options.clock ?? systemClock;
  const ownership = schedulerOwnership(options.weftHome);
  const scheduler = startScheduler({
    owns: () => ownership.owns(),
    weftHome: options.weftHome,
    now: () => clock.now(),
    clock,
    executor: hostClientExecutor(client, {
      log: options.log,
      ...(options.openEnvironment === undefined ? {} : { openEnvironment: options.openEnvironment }),
    }),
    log: options.log,
    onRun: (automationId, outcome) => {
      if (outcome.type !== 'ran') return;
      app
        .announceAutomationRun(automationId, outcome.runId)
        .catch((error: unknown) =>
          options.log(
            `weft automations: ${automationId}: the end of run ${outcome.runId} could not be told: ${errorMessage(error)}`,
          ),
        );
    },
  });
  app.setAutomationRunNow((automation) => scheduler.runNow(automation));
  const close = app.close.bind(app);
  return Object.assign(app, {
    close: async () => {
      app.setAutomationRunNow(null);
      await scheduler.close();
      await ownership.release();
      client.close();
      await close();
    },
  });
}
