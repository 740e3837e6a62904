/** `weft app-server` with its arguments (the words after `app-server`). */
export async function appServerCommand(argv: string[]): Promise<number> {
  // The host is loaded only when served here: `--attach` and `--env` bridge to one elsewhere.
  const { runAppServerCommand } = await import('./app-server');
  return runAppServerCommand(argv, async () => {
    const [{ createAppHost }, { scheduleAutomationsWhenReady }, { withEnvironments }] = await Promise.all([
      import('../server/app-host'),
      import('./late-automations'),
      import('./with-environments'),
    ]);
    // `initialize` and the thread lists are answered before the rest of the host is assembled (about 100
    // ms sooner); the rest is imported in steps with requests answered between them, once no request came
    // for a moment or when one needs it (server/app-host.ts). WEFT_ANSWER_EARLY=0 assembles it first.
    const answerEarly = process.env['WEFT_ANSWER_EARLY'] !== '0';
    return withEnvironments(scheduleAutomationsWhenReady(await createAppHost({ answerEarly })));
  });
}
