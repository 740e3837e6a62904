// E2E: a run of an automation on a remote environment that cannot be reached now. Its Keep, Discard and
// Continue wait for its turn to be read there, so they are grey: the run says why under them, "Try again"
// reaches for the environment anew (its command started again), and "Discard here only" records the run as
// discarded here, after asking, leaving what is there. By mouse through `weft serve`, at 1400×900 and
// 900×700.
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { SCREENSHOT_SIZES, screenshotSizes, startE2e } from '../support/weft-serve';

/** How many times the environment's command was started (it writes a line, then fails). */
const tries = (log: string): number => {
  try {
    return readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe('a remote run whose environment cannot be reached', () => {
  it(
    'says why its actions wait, tries again when asked, and discards the run here only',
    { timeout: 120_000 },
    async () => {
      let log = '';
      const e2e = await startE2e({
        approvalPolicy: 'never',
        viewport: SCREENSHOT_SIZES[0],
        beforeServe: async ({ home }) => {
          log = join(home, 'box-tries.log');
          await appendFile(
            join(home, 'config.toml'),
            `\n[environments.box]\ncommand = ["sh", "-c", ${JSON.stringify(`echo try >> '${log}'; exit 3`)}]\n`,
          );
          // An automation that ran on the box and finished there, its run recorded here.
          const dir = join(home, 'automations');
          await mkdir(dir, { recursive: true });
          await writeFile(
            join(dir, 'box-check.toml'),
            'name = "Box check"\nproject = "/srv/box-project"\nprompt = "check"\nremote = "box"\n[trigger]\ntype = "manual"\n',
          );
          const now = Date.now();
          const lines = [
            {
              type: 'started',
              runId: 'r1',
              trigger: 'manual',
              slot: null,
              startedAt: now - 60_000,
              pid: 1,
              environment: 'box',
            },
            { type: 'thread', runId: 'r1', threadId: '019a0000-0000-7000-8000-000000000001', worktree: '/srv/wt/r1' },
            {
              type: 'ended',
              runId: 'r1',
              endedAt: now - 30_000,
              status: 'completed',
              reason: null,
              finalMessage: 'All fine on the box.',
              turnId: '019a0000-0000-7000-8000-000000000002',
              changedFiles: 1,
              commands: [],
            },
          ];
          await writeFile(join(dir, 'box-check.runs.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
        },
      });
      const { page } = e2e;
      try {
        const sidebar = page.locator('aside.sidebar');
        await clickCentre(page, sidebar.getByRole('button', { name: /^Inbox/ }));
        const screen = page.getByRole('main', { name: 'Automations' });
        const run = screen.locator('article.inbox-run');
        await run.getByRole('region', { name: 'Final message' }).getByText('All fine on the box.').waitFor();
        const reach = run.getByRole('status').filter({ hasText: 'Could not reach box' });
        await reach.waitFor();
        const actions = run.getByRole('group', { name: 'What to do with this run' });
        for (const name of ['Keep', 'Discard', 'Continue'])
          expect(await actions.getByRole('button', { name }).isDisabled()).toBe(true);
        await run
          .getByRole('region', { name: 'Changes' })
          .getByText('The changes could not be read from box')
          .waitFor();
        await screenshotSizes(e2e, 'automations-run-unreachable');

        const before = tries(log);
        expect(before).toBeGreaterThan(0);
        await clickCentre(page, reach.getByRole('button', { name: 'Try again' }));
        await expect.poll(() => tries(log), { timeout: 30_000 }).toBeGreaterThan(before);
        await reach.waitFor();
        expect(await actions.getByRole('button', { name: 'Continue' }).isDisabled()).toBe(true);

        // The box may be gone for good: the run can be discarded here only, after asking.
        await clickCentre(page, reach.getByRole('button', { name: 'Discard here only' }));
        const confirm = run.getByRole('alert').filter({ hasText: 'Discard this run here only?' });
        await confirm
          .getByText('its thread, worktree and changes on box are left as they are', { exact: false })
          .waitFor();
        await screenshotSizes(e2e, 'automations-run-unreachable-discard-here');
        await clickCentre(page, confirm.getByRole('button', { name: 'Discard here' }));
        await run.getByText('Discarded', { exact: true }).waitFor();
        const decided = readFileSync(join(e2e.home.dir, 'automations', 'box-check.runs.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; runId?: string; decision?: string })
          .filter((line) => line.type === 'decided');
        expect(decided).toMatchObject([{ runId: 'r1', decision: 'discarded' }]);
      } finally {
        await e2e.close();
      }
    },
  );
});
