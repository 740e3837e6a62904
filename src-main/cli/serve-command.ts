/** `weft serve` with its arguments (the words after `serve`). */
export async function serveCommand(argv: string[]): Promise<number> {
  const [{ runServeCommand }, { createAppHost }, { scheduleAutomationsIn }, { withEnvironments }] = await Promise.all([
    import('./serve'),
    import('../server/app-host'),
    import('./automation-host'),
    import('./with-environments'),
  ]);
  return runServeCommand(argv, async ({ cwd }) =>
    withEnvironments(await scheduleAutomationsIn(await createAppHost({ cwd })), { pages: true }),
  );
}
