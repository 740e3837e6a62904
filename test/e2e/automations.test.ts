// E2E: automations by mouse through `weft serve` (whose scheduler runs them). From the sidebar: the
// Automations screen, a new automation whose bad cron line the server refuses inline as it is typed, then
// its next run once it is right; Run now; the run lands in the review inbox unread (the sidebar counts
// it), with its final message, the command it ran and its diff hunk by hunk; Keep hands the change to the
// local checkout through Handoff; a second run is discarded after a confirmation (its worktree removed);
// Continue opens a run's thread; the history shows each run, and a run whose project is gone says why. An
// automation made with the form on a remote environment (a pipe to another Weft home), its project a
// folder there completed by it, runs there; its run is in this inbox. Screenshots at 1400×900 and 900×700.
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFolder, makeGitRepo, type GitRepo } from '../support/git-repo';
import { distantWeekdayCron } from '../support/test-schedules';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { remoteWeft, stopUserServer } from '../support/environments';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { makeWeftHome, type WeftHome } from '../support/workspace';
import { SCREENSHOT_SIZES, conversation, screenshotSizes, startE2e } from '../support/weft-serve';

describe('automations and their review inbox', () => {
  it(
    'creates an automation, runs it, reviews the run in the inbox, keeps one run and discards another',
    { timeout: 240_000 },
    async () => {
      const e2e = await startE2e({
        files: { 'notes.txt': 'line 1\nline 2\nline 3\n' },
        approvalPolicy: 'never',
        viewport: SCREENSHOT_SIZES[0],
        beforeServe: async ({ cwd }) => {
          commitFolder(cwd);
        },
      });
      const { page, workspace, mock } = e2e;
      try {
        const sidebar = page.locator('aside.sidebar');
        await clickCentre(page, sidebar.getByRole('button', { name: 'Automations', exact: true }));
        const screen = page.getByRole('main', { name: 'Automations' });
        await screen.getByText('No automations yet.', { exact: false }).waitFor();

        // A new automation: the server checks the schedule as it is typed.
        await clickCentre(page, screen.getByRole('button', { name: 'New automation' }));
        const form = page.getByRole('dialog', { name: 'New automation' });
        await form.getByLabel('Name').fill('Tidy notes');
        await form.getByLabel('Prompt').fill('Tidy notes.txt and check it');
        expect(await form.getByLabel('Project folder').inputValue()).toBe(workspace.dir);
        const cron = form.getByLabel('Schedule (cron)');
        await cron.fill('61 * * * *');
        await form
          .getByRole('alert')
          .getByText('cron "61 * * * *" is not a schedule: Invalid value for minute: 61', { exact: false })
          .waitFor();
        await screenshotSizes(e2e, 'automations-form-bad-cron');
        // Enabled while the test runs: its next time is a day away, so no run comes that the test did not ask for.
        const weekdays = distantWeekdayCron();
        await cron.fill(weekdays);
        await form.getByLabel('Time zone').fill('UTC');
        await form.getByText(/^Next run: /).waitFor();
        await screenshotSizes(e2e, 'automations-form');
        await clickCentre(page, form.getByRole('button', { name: 'Create automation' }));
        await form.waitFor({ state: 'detached' });
        const row = screen.getByRole('listitem', { name: 'Tidy notes' });
        await row.getByText(`${weekdays} (UTC)`).waitFor();
        await row.getByText('Never run').waitFor();

        // Run now: a worktree run that changes line 2 and runs a check.
        mock.enqueueMany([
          {
            kind: 'sse',
            events: [
              evCreated(),
              evFunctionCall('c1', 'exec_command', {
                cmd: "sed -i 's/^line 2$/line two/' notes.txt && grep -c line notes.txt",
              }),
              evCompleted(),
            ],
          },
          {
            kind: 'sse',
            events: [evCreated('r2'), evAssistantMessage('Tidied line 2; 3 lines checked.'), evCompleted('r2')],
          },
        ]);
        await clickCentre(page, row.getByRole('button', { name: 'Run now' }));
        await row.getByText('Finished').waitFor({ timeout: 60_000 });
        await sidebar.getByLabel('1 unread').waitFor();
        await screenshotSizes(e2e, 'automations-list');

        // The inbox: the run, unread until opened.
        await clickCentre(page, sidebar.getByRole('button', { name: /^Inbox/ }));
        const run = screen.locator('article.inbox-run');
        await run.getByRole('heading', { name: 'Tidy notes' }).waitFor();
        await run.getByRole('region', { name: 'Final message' }).getByText('Tidied line 2; 3 lines checked.').waitFor();
        await run.getByRole('region', { name: 'Commands run' }).getByText('exit 0').waitFor();
        const changes = run.getByRole('region', { name: 'Changes' });
        await changes.getByRole('region', { name: 'Changes to notes.txt' }).waitFor();
        await changes
          .getByRole('button', { name: /Undo hunk/ })
          .first()
          .waitFor();
        // Opening it marked it seen on the server: the count is gone.
        await expect.poll(async () => sidebar.getByLabel('1 unread').count()).toBe(0);
        await screenshotSizes(e2e, 'automations-inbox');

        // Keep: the Handoff to the local checkout.
        await clickCentre(
          page,
          run.getByRole('group', { name: 'What to do with this run' }).getByRole('button', { name: 'Keep' }),
        );
        const handoff = page.getByRole('dialog', { name: 'Handoff' });
        await clickCentre(page, handoff.getByRole('button', { name: 'Hand off 1 file' }));
        await handoff.getByRole('status').getByText('Handed off: 1 file written', { exact: false }).waitFor();
        await clickCentre(page, handoff.getByRole('button', { name: 'Close' }).last());
        await run.getByText('Kept', { exact: true }).waitFor();
        expect(readFileSync(workspace.path('notes.txt'), 'utf8')).toBe('line 1\nline two\nline 3\n');

        // A second run that changes nothing, discarded after asking.
        mock.enqueue({
          kind: 'sse',
          events: [evCreated(), evAssistantMessage('Nothing left to tidy.'), evCompleted()],
        });
        await clickCentre(page, screen.getByRole('tab', { name: 'Automations' }));
        await clickCentre(page, row.getByRole('button', { name: 'Run now' }));
        await sidebar.getByLabel('1 unread').waitFor({ timeout: 60_000 });
        await clickCentre(page, screen.getByRole('tab', { name: /^Inbox/ }));
        const second = screen.locator('article.inbox-run');
        await second.getByText('Nothing left to tidy.').waitFor();
        await second.getByText('The run changed no file.').waitFor();
        const worktree = readFileSync(
          // The run's worktree, as its history records it.
          `${e2e.home.dir}/automations/tidy-notes.runs.jsonl`,
          'utf8',
        )
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; worktree?: string })
          .filter((line) => line.type === 'thread')
          .at(-1)?.worktree;
        expect(worktree !== undefined && existsSync(worktree)).toBe(true);
        await clickCentre(
          page,
          second.getByRole('group', { name: 'What to do with this run' }).getByRole('button', { name: 'Discard' }),
        );
        const confirm = second.getByRole('alert');
        await confirm.getByText('Its worktree and the changes in it are removed', { exact: false }).waitFor();
        await screenshotSizes(e2e, 'automations-discard-confirm');
        await clickCentre(page, confirm.getByRole('button', { name: 'Discard run' }));
        await second.getByText('Discarded', { exact: true }).waitFor();
        expect(existsSync(worktree ?? '')).toBe(false);

        // The history lists both runs; Continue opens a run's thread.
        await clickCentre(page, screen.getByRole('tab', { name: 'Automations' }));
        await clickCentre(page, row.getByRole('button', { name: 'History' }));
        const runs = row.getByRole('list', { name: 'Runs' });
        await expect.poll(async () => runs.getByRole('listitem').count()).toBe(2);
        await screenshotSizes(e2e, 'automations-history');
        await clickCentre(page, screen.getByRole('tab', { name: /^Inbox/ }));
        await clickCentre(page, screen.getByRole('button', { name: /Tidy notes.*Finished.*kept/i }));
        const kept = screen.locator('article.inbox-run');
        await kept.getByText('Kept', { exact: true }).waitFor();
        await wheelIntoView(page, kept.getByRole('button', { name: 'Continue' }), screen.locator('.automations-body'));
        await clickCentre(page, kept.getByRole('button', { name: 'Continue' }));
        await screen.waitFor({ state: 'detached' });
        await conversation(page).getByText('Tidied line 2; 3 lines checked.').waitFor();
      } finally {
        await e2e.close();
      }
    },
  );

  it(
    'shows in the history why a run failed (its project folder is gone), at 900×700',
    { timeout: 120_000 },
    async () => {
      const e2e = await startE2e({ approvalPolicy: 'never', viewport: SCREENSHOT_SIZES[1] });
      const { page } = e2e;
      try {
        const sidebar = page.locator('aside.sidebar');
        await clickCentre(page, sidebar.getByRole('button', { name: 'Automations', exact: true }));
        const screen = page.getByRole('main', { name: 'Automations' });
        await clickCentre(page, screen.getByRole('button', { name: 'New automation' }));
        const form = page.getByRole('dialog', { name: 'New automation' });
        await form.getByLabel('Name').fill('Gone project');
        await form.getByLabel('Prompt').fill('Anything');
        await form.getByLabel('Project folder').fill('/nonexistent/weft-project');
        // The form is taller than this window: the wheel brings its lower fields into view (the buttons stay).
        const fields = form.locator('.automation-form-fields');
        const cron = form.getByLabel('Schedule (cron)');
        await wheelIntoView(page, cron, fields);
        await cron.fill('0 25 * * *');
        const refusal = form.getByText('Invalid value for hour: 25', { exact: false });
        await refusal.waitFor();
        await wheelIntoView(page, refusal, fields);
        await e2e.screenshot('automations-form-bad-cron-900x700-scrolled');
        const manual = form.getByRole('button', { name: 'Only with Run now' });
        await wheelIntoView(page, manual, fields);
        await clickCentre(page, manual);
        await clickCentre(page, form.getByRole('button', { name: 'Create automation' }));
        const row = screen.getByRole('listitem', { name: 'Gone project' });
        await row.getByText('Manual (Run now)').waitFor();
        await clickCentre(page, row.getByRole('button', { name: 'Run now' }));
        await row.getByText('Failed').waitFor({ timeout: 30_000 });
        await clickCentre(page, row.getByRole('button', { name: 'History' }));
        await row
          .getByText('the project folder /nonexistent/weft-project does not exist any more', { exact: false })
          .waitFor();
        await screenshotSizes(e2e, 'automations-failed-run');
        await clickCentre(page, sidebar.getByRole('button', { name: /^Inbox/ }));
        const run = screen.locator('article.inbox-run');
        await run.getByText('does not exist any more', { exact: false }).first().waitFor();
        await screenshotSizes(e2e, 'automations-inbox-failed');
      } finally {
        await e2e.close();
      }
    },
  );

  it(
    'makes an automation on a remote environment with the form, runs it there and reviews its run here',
    { timeout: 240_000 },
    async () => {
      // Made before `weft serve` starts (its config names the environment); removed after.
      const made: WeftHome[] = [];
      let boxProject: GitRepo | null = null;
      const e2e = await startE2e({
        approvalPolicy: 'never',
        viewport: SCREENSHOT_SIZES[0],
        beforeServe: async ({ home }) => {
          // The remote Weft home uses the same mock model; this one reaches it through a pipe.
          const config = await readFile(join(home, 'config.toml'), 'utf8');
          const remote = await makeWeftHome(config);
          made.push(remote);
          await appendFile(
            join(home, 'config.toml'),
            `\n[environments.box]\ncommand = ["sh", "-c", ${JSON.stringify(`${remoteWeft(remote.dir)} app-server`)}]\n`,
          );
          // The project on the box (a folder there; this machine's page never opened it).
          boxProject = await makeGitRepo({ 'README.md': '# Box project\n' });
        },
      });
      const { page, mock } = e2e;
      const project = boxProject as GitRepo | null;
      if (project === null) throw new Error('the box project was not made');
      try {
        const sidebar = page.locator('aside.sidebar');
        await clickCentre(page, sidebar.getByRole('button', { name: 'Automations', exact: true }));
        const screen = page.getByRole('main', { name: 'Automations' });
        await clickCentre(page, screen.getByRole('button', { name: 'New automation' }));
        const form = page.getByRole('dialog', { name: 'New automation' });
        await form.getByLabel('Name').fill('Box check');
        await form.getByLabel('Prompt').fill('check');
        // On the box: its folders complete, and only its schedule or Run now can start it.
        const runsOn = form.getByRole('group', { name: 'Runs on' });
        expect(await runsOn.getByRole('button', { name: 'This machine' }).getAttribute('aria-pressed')).toBe('true');
        await clickCentre(page, runsOn.getByRole('button', { name: 'box', exact: true }));
        await form.getByText('A folder on box; its thread and worktree are made there.').waitFor();
        const folder = form.getByLabel('Project folder');
        await folder.fill(project.dir.slice(0, -3));
        await form.locator(`datalist option[value="${project.dir}"]`).waitFor({ state: 'attached' });
        await folder.fill(project.dir);
        const runs = form.getByRole('group', { name: 'Runs', exact: true });
        expect(await runs.getByRole('button').allTextContents()).toEqual(['On a schedule', 'Only with Run now']);
        const manual = runs.getByRole('button', { name: 'Only with Run now' });
        await wheelIntoView(page, manual, form.locator('.automation-form-fields'));
        await clickCentre(page, manual);
        await screenshotSizes(e2e, 'automations-form-remote');
        await clickCentre(page, form.getByRole('button', { name: 'Create automation' }));
        await form.waitFor({ state: 'detached' });
        const row = screen.getByRole('listitem', { name: 'Box check' });
        await row.getByText('worktree on box').waitFor();
        const file = join(e2e.home.dir, 'automations', 'box-check.toml');
        expect(await readFile(file, 'utf8')).toContain('\nremote = "box"\n');

        // Edited: the form shows where it runs.
        await clickCentre(page, row.getByRole('button', { name: 'Edit' }));
        const edit = page.getByRole('dialog', { name: 'Edit Box check' });
        expect(
          await edit
            .getByRole('group', { name: 'Runs on' })
            .getByRole('button', { name: 'box' })
            .getAttribute('aria-pressed'),
        ).toBe('true');
        expect(await edit.getByLabel('Project folder').inputValue()).toBe(project.dir);
        await clickCentre(page, edit.getByRole('button', { name: 'Save' }));
        await edit.waitFor({ state: 'detached' });
        expect(await readFile(file, 'utf8')).toContain('\nremote = "box"\n');

        // The run changes a file in its worktree there.
        mock.enqueueMany([
          {
            kind: 'sse',
            events: [
              evCreated(),
              evFunctionCall('c1', 'exec_command', {
                cmd: "sed -i 's/^# Box project$/# Box project (checked)/' README.md",
              }),
              evCompleted(),
            ],
          },
          { kind: 'sse', events: [evCreated('r2'), evAssistantMessage('All fine on the box.'), evCompleted('r2')] },
        ]);
        await clickCentre(page, row.getByRole('button', { name: 'Run now' }));
        await sidebar.getByLabel('1 unread').waitFor({ timeout: 60_000 });
        await clickCentre(page, sidebar.getByRole('button', { name: /^Inbox/ }));
        const run = screen.locator('article.inbox-run');
        await run.getByRole('region', { name: 'Final message' }).getByText('All fine on the box.').waitFor();
        await run.getByText('in a worktree on box', { exact: false }).waitFor();
        // Its diff, read from its thread there, hunk by hunk.
        const changes = run.getByRole('region', { name: 'Changes' });
        await changes.getByRole('region', { name: 'Changes to README.md' }).waitFor();
        await changes
          .getByRole('button', { name: /Undo hunk/ })
          .first()
          .waitFor();
        await screenshotSizes(e2e, 'automations-inbox-remote-run');

        // Keep: the Handoff there, to the project's checkout on the box.
        const actions = run.getByRole('group', { name: 'What to do with this run' });
        expect(await actions.getByRole('button', { name: 'Keep' }).getAttribute('title')).toBe(
          "Hand the changes to the project's checkout on box",
        );
        await clickCentre(page, actions.getByRole('button', { name: 'Keep' }));
        const handoff = page.getByRole('dialog', { name: 'Handoff' });
        await clickCentre(page, handoff.getByRole('button', { name: 'Hand off 1 file' }));
        await handoff.getByRole('status').getByText('Handed off: 1 file written', { exact: false }).waitFor();
        await clickCentre(page, handoff.getByRole('button', { name: 'Close' }).last());
        await run.getByText('Kept', { exact: true }).waitFor();
        expect(readFileSync(join(project.dir, 'README.md'), 'utf8')).toBe('# Box project (checked)\n');

        // A second run, discarded after asking: its worktree on the box is removed, its thread archived there.
        mock.enqueueMany([
          {
            kind: 'sse',
            events: [
              evCreated(),
              evFunctionCall('c2', 'exec_command', { cmd: 'echo extra > extra.txt' }),
              evCompleted(),
            ],
          },
          { kind: 'sse', events: [evCreated('r4'), evAssistantMessage('Added a file.'), evCompleted('r4')] },
        ]);
        await clickCentre(page, screen.getByRole('tab', { name: 'Automations' }));
        await clickCentre(page, row.getByRole('button', { name: 'Run now' }));
        await sidebar.getByLabel('1 unread').waitFor({ timeout: 60_000 });
        await clickCentre(page, screen.getByRole('tab', { name: /^Inbox/ }));
        const second = screen.locator('article.inbox-run');
        await second.getByText('Added a file.').waitFor();
        await second.getByRole('region', { name: 'Changes to extra.txt' }).waitFor();
        const [, secondRun] = readFileSync(join(e2e.home.dir, 'automations', 'box-check.runs.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; worktree?: string; threadId?: string })
          .filter((line) => line.type === 'thread');
        const worktree = secondRun?.worktree ?? '';
        expect(worktree.startsWith(join(made[0]?.dir ?? '', 'worktrees'))).toBe(true);
        expect(existsSync(join(worktree, 'extra.txt'))).toBe(true);
        await clickCentre(
          page,
          second.getByRole('group', { name: 'What to do with this run' }).getByRole('button', { name: 'Discard' }),
        );
        const confirm = second.getByRole('alert');
        await confirm.getByText('Its worktree on box and the changes in it are removed', { exact: false }).waitFor();
        await screenshotSizes(e2e, 'automations-discard-remote-confirm');
        await clickCentre(page, confirm.getByRole('button', { name: 'Discard run' }));
        await second.getByText('Discarded', { exact: true }).waitFor();
        expect(existsSync(worktree)).toBe(false);
        const archived = await runWeftCli(['threads', 'list', '--archived', '--json'], {
          cwd: project.dir,
          weftHome: made[0]?.dir ?? '',
        });
        expect(archived.stdout).toContain(secondRun?.threadId ?? 'no thread');
        // Nothing of the discarded run reached the project's checkout there.
        expect(existsSync(join(project.dir, 'extra.txt'))).toBe(false);

        // Continue: the project on the box joins this window, with the kept run's thread open.
        await clickCentre(page, screen.getByRole('button', { name: /Box check.*Finished.*on box · kept/i }));
        const kept = screen.locator('article.inbox-run');
        await kept.getByText('Kept', { exact: true }).waitFor();
        await clickCentre(page, kept.getByRole('button', { name: 'Continue' }));
        await screen.waitFor({ state: 'detached' });
        await conversation(page).getByText('All fine on the box.').waitFor();
        await screenshotSizes(e2e, 'automations-remote-continue');
      } finally {
        await e2e.close();
        for (const home of made) {
          await stopUserServer(home.dir);
          await home.cleanup();
        }
        await project.cleanup();
      }
    },
  );
});
