// The automations' scheduler of a host that answers before it is whole (`answerEarly`, weft app-server):
// started, and its modules imported, once the host is ready; a run needs all of it anyway.
import type { AppHost } from '../server/app-host';
import type { CliHost } from './transport-setup';

export function scheduleAutomationsWhenReady(app: AppHost): CliHost {
  let ready = false;
  let closing = false;
  const scheduled: Promise<AppHost> = app.ready.then(async () => {
    ready = true;
    if (closing) return app;
    const { scheduleAutomationsIn } = await import('./automation-host');
    return closing ? app : scheduleAutomationsIn(app);
  });
  return {
    host: app.host,
    makeWay: () => app.unloadWhenUnwatched(),
    close: async () => {
      closing = true;
      // Not ready yet: nothing is scheduled, and the host stops assembling. A host that could not be
      // assembled said why in its log; it is closed without a scheduler.
      if (!ready) return app.close();
      return (await scheduled.catch(() => app)).close();
    },
  };
}
