// E2E: a project on an environment beside the local one, in one window of `weft serve` (no `--env`). Open
// folder offers the environments of config.toml; choosing one completes the folders there (the remote
// user's home, through its `weft/fs/complete`) and opens the project there. The switcher and "Needs me"
// show both projects, the remote one marked with its environment; a thread there asks for an approval,
// answered here, and its command runs there. The project's tools are the remote's: the Changes panel reads
// its git, the terminal is a shell there, `@` lists its files, and a fork of its thread runs there. The environment is a local pipe (`command = [...]`) to this
// checkout's `weft app-server` under its own WEFT_HOME and HOME, as `kubectl exec -i` would be.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { boxConfig, childProcesses, remoteWeft } from '../support/environments';
import { commitFolder, git } from '../support/git-repo';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome } from '../support/workspace';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

/** The model of each turn the model server was asked for (its Responses calls, not its model list). */
function turnsAsked(server: MockResponsesServer): unknown[] {
  return server.requests.filter((r) => r.n > 0).map((r) => (r.body as { model?: unknown }).model);
}

/** The sidebar row of the thread titled `title`. */
function row(page: Page, title: string): Locator {
  return page
    .getByRole('navigation', { name: 'Threads' })
    .locator('.thread-row')
    .filter({ has: page.getByText(title, { exact: true }) });
}

describe('a project on an environment beside the local one', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `is opened through Open folder and shown marked beside the local one (${size.width}×${size.height})`,
      { timeout: 240_000 },
      async () => {
        // The remote: its own model, Weft home and user home holding the project.
        const remoteModel = await startMockResponsesServer();
        onTestFinished(() => remoteModel.close());
        const remoteUser = await makeTempWorkspace({
          'srv/remote-app/README.md': '# Remote\n',
          'srv/remote-app/src/only-on-box.ts': 'export {};\n',
          'srv/other/x': '',
        });
        onTestFinished(() => remoteUser.cleanup());
        commitFolder(`${remoteUser.dir}/srv/remote-app`);
        const remoteHome = await makeWeftHome(
          boxConfig(remoteModel.url, { top: ['approval_policy = "untrusted"', 'sandbox_mode = "danger-full-access"'] }),
        );
        onTestFinished(() => remoteHome.cleanup());
        const pipe = `HOME=${remoteUser.dir} ${remoteWeft(remoteHome.dir)} app-server`;
        const e2e = await startE2e({
          viewport: size,
          files: { 'README.md': '# Local\n' },
          extraConfig: `[environments.box]\ncommand = ["sh", "-c", ${JSON.stringify(pipe)}]\n`,
        });
        onTestFinished(() => e2e.close());
        const { page, workspace } = e2e;
        const here = basename(workspace.dir);
        const remoteFolder = `${remoteUser.dir}/srv/remote-app`;

        // A thread here first.
        e2e.mock.enqueue(answerTurn('Local done.'));
        await sendMessage(page, 'Local work');
        await conversation(page).getByText('Local done.', { exact: true }).waitFor();

        // Open folder → box: the folders completed are the remote user's.
        await clickCentre(page, page.getByRole('button', { name: 'Open folder', exact: true }));
        const picker = page.getByRole('dialog', { name: 'Open folder' });
        const where = picker.getByRole('group', { name: 'Where the folder is' });
        await clickCentre(page, where.getByRole('button', { name: 'box', exact: true }));
        expect(await where.getByRole('button', { name: 'box', exact: true }).getAttribute('aria-pressed')).toBe('true');
        const field = picker.getByRole('combobox', { name: 'Folder path' });
        await clickCentre(page, field);
        await field.fill('~/srv/');
        // The first request for the environment starts its pipe (a Weft there): more than the poll's second.
        await expect
          .poll(
            () => picker.locator('datalist option').evaluateAll((els) => els.map((el) => el.getAttribute('value'))),
            {
              timeout: 30_000,
            },
          )
          .toEqual([`${remoteUser.dir}/srv/other`, remoteFolder]);
        await e2e.screenshot(`environment-open-folder-${size.width}x${size.height}`);
        // A folder that is not there is named with the environment.
        await field.fill('~/srv/nothing-here');
        await clickCentre(page, picker.getByRole('button', { name: 'Open', exact: true }));
        await picker
          .getByRole('alert')
          .getByText(`${remoteUser.dir}/srv/nothing-here does not exist on box.`, { exact: true })
          .waitFor();
        await field.fill('~/srv/remote-app');
        await clickCentre(page, picker.getByRole('button', { name: 'Open', exact: true }));
        await picker.waitFor({ state: 'detached' });

        // Both projects in the switcher, the remote one marked; it is shown.
        const projects = page.getByRole('navigation', { name: 'Projects' });
        const remoteProject = projects.getByRole('button', { name: 'remote-app on box', exact: true });
        await remoteProject.waitFor();
        await projects.getByRole('button', { name: here, exact: true }).waitFor();
        expect(await projects.locator('.project-item.is-current .project-name').textContent()).toBe('remote-app');
        expect(await projects.locator('.project-item.is-current .project-env').textContent()).toBe('box');
        expect(await projects.locator('.project-item.is-current .project-path').textContent()).toContain(remoteFolder);

        // A thread there: its command asks for approval.
        remoteModel.enqueueMany([
          {
            kind: 'sse',
            events: [
              evCreated(),
              // No login shell: the profile of the ssh user there is the machine's, slow on a busy one.
              evFunctionCall('c1', 'exec_command', { cmd: 'touch made-on-box.txt', login: false }),
              evCompleted(),
            ],
          },
          answerTurn('Remote done.'),
        ]);
        // The composer offers the remote's model, its config's default there.
        const model = page.getByRole('combobox', { name: 'Model' });
        await expect.poll(() => model.inputValue(), { timeout: 30_000 }).toBe('box-model');
        await sendMessage(page, 'Remote work');
        const approval = page.getByRole('dialog', { name: 'Approve command' });
        await approval.locator('pre').getByText('touch made-on-box.txt', { exact: true }).waitFor();
        expect(existsSync(`${remoteFolder}/made-on-box.txt`)).toBe(false);
        // Its rollout is the remote's.
        expect(turnsAsked(remoteModel)).toEqual(['box-model']);

        // Back to the local project: the remote one counts what needs the person, marked with its environment.
        await clickCentre(page, projects.getByRole('button', { name: here, exact: true }));
        await projects.getByRole('button', { name: 'remote-app on box, 1 thread needs you', exact: true }).waitFor();
        await row(page, 'Local work').waitFor();
        expect(await row(page, 'Remote work').count()).toBe(0);
        await expect.poll(() => model.inputValue()).toBe('mock-model');
        await e2e.screenshot(`environment-two-projects-${size.width}x${size.height}`);

        // Needs me: the remote thread under its project, marked.
        await clickCentre(page, page.getByRole('button', { name: /^Needs me/ }));
        const threads = page.getByRole('navigation', { name: 'Threads' });
        const group = threads.getByRole('list', { name: 'Needing you in remote-app on box' });
        await group.waitFor();
        expect(await threads.locator('.board-group .section-label').allTextContents()).toEqual(['remote-appbox']);
        await e2e.screenshot(`environment-needs-me-${size.width}x${size.height}`);

        // Opened from there, it shows the remote project and its approval; accepted here, it runs there.
        await clickCentre(page, group.getByRole('button', { name: 'Remote work', exact: true }));
        await approval.locator('pre').getByText('touch made-on-box.txt', { exact: true }).waitFor();
        expect(await projects.locator('.project-item.is-current .project-name').textContent()).toBe('remote-app');
        await clickCentre(page, approval.getByRole('button', { name: 'Accept', exact: true }));
        await conversation(page).getByText('Remote done.', { exact: true }).waitFor();
        expect(existsSync(`${remoteFolder}/made-on-box.txt`)).toBe(true);
        await e2e.screenshot(`environment-remote-turn-${size.width}x${size.height}`);

        // The Changes panel reads the repository there: the file the turn made is untracked there.
        const main = page.locator('.main-column');
        await clickCentre(page, main.getByRole('button', { name: 'Changes', exact: true }));
        const changes = page.getByRole('region', { name: 'Changes' });
        await changes
          .getByRole('region', { name: 'Untracked' })
          .getByText('made-on-box.txt', { exact: true })
          .waitFor({ timeout: 30_000 });
        await e2e.screenshot(`environment-changes-${size.width}x${size.height}`);
        // Staged from here, in the index there.
        await clickCentre(
          page,
          changes.getByRole('region', { name: 'Untracked' }).getByRole('button', { name: 'Stage' }),
        );
        await changes
          .getByRole('region', { name: 'Staged' })
          .getByText('made-on-box.txt', { exact: true })
          .waitFor({ timeout: 30_000 });
        expect(git(remoteFolder, 'diff', '--cached', '--name-only')).toBe('made-on-box.txt\n');
        await clickCentre(page, changes.getByRole('button', { name: 'Close changes' }));
        await changes.waitFor({ state: 'detached' });

        // The terminal is a shell there: the remote user's home, in the project's folder there.
        await clickCentre(page, main.getByRole('button', { name: 'Terminal', exact: true }));
        const terminal = page.getByRole('region', { name: 'Terminal' });
        await terminal.getByRole('tab', { name: 'Terminal 1 · box' }).waitFor();
        const screen = terminal.locator('[data-terminal]:not([hidden]) .xterm-rows');
        await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
        await page.keyboard.type('echo "home=$HOME" && pwd');
        await page.keyboard.press('Enter');
        await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain(`home=${remoteUser.dir}`);
        expect(await screen.innerText()).toContain(remoteFolder);
        await e2e.screenshot(`environment-terminal-${size.width}x${size.height}`);
        await clickCentre(page, terminal.getByRole('button', { name: 'Hide terminal' }));
        await terminal.waitFor({ state: 'hidden' });

        // `@` lists the project's files there.
        const box = page.getByRole('textbox', { name: 'Message' });
        await clickCentre(page, box);
        await page.keyboard.type('See @onlybox');
        const files = page.getByRole('listbox', { name: 'Files' });
        await files.getByRole('option', { name: /src\/only-on-box\.ts/ }).waitFor({ timeout: 30_000 });
        await e2e.screenshot(`environment-mention-${size.width}x${size.height}`);
        await page.keyboard.press('Escape');
        await box.fill('');

        // A fork of the remote thread is a thread there, and its turn runs there.
        await clickCentre(page, conversation(page).getByRole('button', { name: 'Fork from here' }).last());
        await main.getByRole('button', { name: 'Forked from parent' }).waitFor();
        expect(await projects.locator('.project-item.is-current .project-name').textContent()).toBe('remote-app');
        const asked = turnsAsked(remoteModel).length;
        remoteModel.enqueue(answerTurn('Fork done on box.'));
        await sendMessage(page, 'Fork work');
        await conversation(page).getByText('Fork done on box.', { exact: true }).waitFor();
        expect(turnsAsked(remoteModel).length).toBe(asked + 1);

        // A fork into a worktree there is listed under the project there, also when the project's lists are
        // read again (back from the local project).
        await clickCentre(page, page.getByRole('button', { name: 'All', exact: true }));
        const forkButton = conversation(page).getByRole('button', { name: 'Fork into worktree' }).last();
        await wheelIntoView(page, forkButton, conversation(page));
        await clickCentre(page, forkButton);
        const forkRow = page.getByRole('navigation', { name: 'Threads' }).locator('.thread-row.is-fork');
        await forkRow
          .locator('.thread-where')
          .getByText(/^on weft\//)
          .waitFor({ timeout: 30_000 });
        await clickCentre(page, projects.getByRole('button', { name: here, exact: true }));
        await forkRow.waitFor({ state: 'detached' });
        await clickCentre(page, remoteProject);
        await forkRow
          .locator('.thread-where')
          .getByText(/^on weft\//)
          .waitFor({ timeout: 30_000 });
        expect(await projects.locator('.project-item.is-current .project-env').textContent()).toBe('box');
        await e2e.screenshot(`environment-worktree-fork-${size.width}x${size.height}`);

        // The link drops while a terminal there is open: the tab says what happened, not that its shell could
        // not start (the shell had run there, and ended with the link: without `--attach` the app server there
        // ends with the pipe, so the reconnect finds it not kept).
        await clickCentre(page, main.getByRole('button', { name: 'Terminal', exact: true }));
        await terminal.waitFor();
        await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
        const children = await childProcesses(e2e.servePid());
        const lines = await Promise.all(
          children.map(([pid]) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
        );
        const pipes = children.filter((_, i) => lines[i]?.includes('app-server'));
        expect(pipes).toHaveLength(1);
        for (const [pid] of pipes) process.kill(pid, 'SIGKILL');
        // Read without the spaces and line breaks of the terminal's rows: a narrow terminal wraps the line.
        const flat = async (): Promise<string> => (await screen.innerText()).replace(/\s+/g, '');
        await expect
          .poll(flat, { timeout: 30_000 })
          .toContain(
            'Thelinktoboxdropped,andtheshelltherewasnotkeptuntilitcameback(Weftthererestarted,orthelinkwasdownlongerthanitsgraceperiod).Openanewterminal.',
          );
        expect(await screen.innerText()).not.toContain('Could not start the shell');
        await terminal.getByRole('tab', { name: /· box \(link dropped\)$/ }).waitFor();
        await e2e.screenshot(`environment-terminal-link-dropped-${size.width}x${size.height}`);
      },
    );
  }
});
