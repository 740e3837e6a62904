import { keepCompiledCode } from '../util/compiled-code';

/** `weft serve` with its arguments (the words after `serve`). */
export async function serveCommand(argv: string[]): Promise<number> {
  const [{ runServeCommand }, { createAppHost }, { scheduleAutomationsIn }, { withEnvironments }] = await Promise.all([
    import('./serve'),
    import('../server/app-host'),
    import('./automation-host'),
    import('./with-environments'),
  ]);
  return runServeCommand(argv, async ({ cwd }) => {
    const app = withEnvironments(await scheduleAutomationsIn(await createAppHost({ cwd })), { pages: true });
    // A host that started serves: its compiled code is worth keeping for the next start.
    keepCompiledCode();
    return app;
  });
}
