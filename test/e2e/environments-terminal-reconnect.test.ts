// E2E: a terminal of a project on an environment reached through the per-user server there (`weft
// app-server --attach`) outlives a dropped link. The pipe (its process, a child of `weft serve`) is killed
// while the environment cannot be reached; the tab says it is reconnecting, the shell there goes on and
// prints meanwhile; once the link is back the tab shows what it printed, and what is typed reaches the same
// shell. The environment is a local pipe (`command = [...]`) to this checkout's `weft app-server --attach`
// under its own WEFT_HOME and HOME, as `kubectl exec -i` would be.
import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { childProcesses, remoteWeft, stopUserServer } from '../support/environments';
import { clickCentre } from '../support/mouse';
import { makeTempWorkspace, makeWeftHome } from '../support/workspace';
import { screenshotSizes, startE2e } from '../support/weft-serve';

describe('a terminal on an environment whose link drops', () => {
  it('says it is reconnecting, then goes on with what the shell printed meanwhile', { timeout: 180_000 }, async () => {
    const remoteUser = await makeTempWorkspace({ 'srv/remote-app/README.md': '# Remote\n' });
    onTestFinished(() => remoteUser.cleanup());
    const remoteHome = await makeWeftHome('model = "box-model"\n');
    onTestFinished(() => remoteHome.cleanup());
    onTestFinished(() => stopUserServer(remoteHome.dir));
    // While this file exists, box cannot be reached (as a laptop without Wi-Fi could not).
    const block = join(remoteHome.dir, 'unreachable');
    onTestFinished(() => rm(block, { force: true }));
    const pipe = `[ -e ${block} ] && { echo unreachable >&2; exit 1; }; exec env HOME=${remoteUser.dir} ${remoteWeft(remoteHome.dir)} app-server --attach`;
    const e2e = await startE2e({
      viewport: { width: 1400, height: 900 },
      extraConfig: `[environments.box]\ncommand = ["sh", "-c", ${JSON.stringify(pipe)}]\n`,
    });
    const { page } = e2e;
    const remoteFolder = `${remoteUser.dir}/srv/remote-app`;
    // What the shell there reads from, written while the link is down.
    const fifo = join(remoteUser.dir, 'meanwhile');
    execFileSync('mkfifo', [fifo]);

    // Open folder → box → the project there.
    await clickCentre(page, page.getByRole('button', { name: 'Open folder', exact: true }));
    const picker = page.getByRole('dialog', { name: 'Open folder' });
    const where = picker.getByRole('group', { name: 'Where the folder is' });
    await clickCentre(page, where.getByRole('button', { name: 'box', exact: true }));
    const field = picker.getByRole('combobox', { name: 'Folder path' });
    await clickCentre(page, field);
    await field.fill(remoteFolder);
    await clickCentre(page, picker.getByRole('button', { name: 'Open', exact: true }));
    await picker.waitFor({ state: 'detached', timeout: 30_000 });

    // A terminal there, its shell waiting on what comes through the fifo.
    const main = page.locator('.main-column');
    await clickCentre(page, main.getByRole('button', { name: 'Terminal', exact: true }));
    const terminal = page.getByRole('region', { name: 'Terminal' });
    await terminal.getByRole('tab', { name: 'Terminal 1 · box', exact: true }).waitFor();
    const screen = terminal.locator('[data-terminal]:not([hidden]) .xterm-rows');
    // Read without the spaces and line breaks of the terminal's rows: a narrow terminal wraps the line.
    const flat = async (): Promise<string> => (await screen.innerText()).replace(/\s+/g, '');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
    await page.keyboard.type(`echo "pid=$$"; cat ${fifo}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/pid=\d+/);
    const shellPid = Number(/pid=(\d+)/.exec(await screen.innerText())?.[1]);

    // The link drops and cannot come back for now.
    await writeFile(block, '');
    const children = await childProcesses(e2e.servePid());
    const lines = await Promise.all(children.map(([pid]) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')));
    const pipes = children.filter((_, i) => lines[i]?.includes('app-server'));
    expect(pipes).toHaveLength(1);
    for (const [pid] of pipes) process.kill(pid, 'SIGKILL');
    await terminal.getByRole('tab', { name: 'Terminal 1 · box (reconnecting…)', exact: true }).waitFor();
    await expect.poll(flat, { timeout: 30_000 }).toContain('[Reconnectingtobox…]');
    // The shell there goes on, and prints while nobody sees it.
    expect(() => process.kill(shellPid, 0)).not.toThrow();
    await writeFile(fifo, 'printed-while-away\n');
    await screenshotSizes(e2e, 'environment-terminal-reconnecting');

    // The link comes back: the tab goes on with what the shell printed meanwhile, and is typed into again.
    await rm(block);
    await terminal.getByRole('tab', { name: 'Terminal 1 · box', exact: true }).waitFor({ timeout: 30_000 });
    await expect.poll(flat, { timeout: 30_000 }).toContain('printed-while-away');
    expect(await flat()).toContain('[Reconnectedtobox]');
    await clickCentre(page, terminal.locator('[data-terminal]:not([hidden]) .xterm-screen'));
    await page.keyboard.type('echo "same=$$"');
    await page.keyboard.press('Enter');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain(`same=${shellPid}`);
    expect(await flat()).not.toContain('Thelinktoboxdropped');
    await screenshotSizes(e2e, 'environment-terminal-reconnected');
  });
});
