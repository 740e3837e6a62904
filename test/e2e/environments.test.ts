// E2E: `weft serve --env box`: the page here, the agent on the environment (here a local pipe to
// `weft app-server --attach`, as `kubectl exec -i` would be). The project is marked with its environment;
// when the link drops and cannot come back at once, the page says "Reconnecting to box…", and it goes
// once the link is back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopUserServer, WEFT_BIN, relayPipes } from '../support/environments';
import { startE2e } from '../support/weft-serve';

let blockDir: string;

beforeAll(async () => {
  blockDir = await mkdtemp(join(tmpdir(), 'weft-env-block-'));
});

afterAll(async () => {
  await rm(blockDir, { recursive: true, force: true });
});

describe('a project on an environment', () => {
  it('is marked with the environment, and the page says when the link is down', async () => {
    const block = join(blockDir, 'unreachable');
    // The pipe refuses while the block file exists, as an unreachable host would.
    const pipe = `[ -e ${block} ] && { echo "box is unreachable" >&2; exit 1; }; exec ${process.execPath} ${WEFT_BIN} app-server --attach`;
    const e2e = await startE2e({
      serveArgs: ['--env', 'box'],
      serveEnv: { WEFT_RELAY_MAX_DELAY_MS: '300' },
      extraConfig: `[environments.box]\ncommand = ["sh", "-c", ${JSON.stringify(pipe)}]\n`,
    });
    try {
      const { page } = e2e;
      const project = page.getByRole('button', { name: /on box$/ });
      await project.waitFor();
      expect(await page.locator('.project .project-env').textContent()).toBe('box');
      await e2e.screenshot('environment-project');

      await writeFile(block, '');
      // The pipe's Node (its process name says nothing: Node 24 calls its main thread "MainThread").
      const pipes = await relayPipes(e2e.servePid());
      expect(pipes.length).toBeGreaterThan(0);
      for (const pid of pipes) process.kill(pid, 'SIGKILL');
      const banner = page.getByRole('status').filter({ hasText: 'Reconnecting to box…' });
      await banner.waitFor();
      await expect.poll(() => banner.textContent()).toContain('box is unreachable');
      await e2e.screenshot('environment-reconnecting');

      await rm(block);
      await banner.waitFor({ state: 'detached' });
      await project.waitFor();
    } finally {
      await e2e.stopServe();
      await stopUserServer(e2e.home.dir);
    }
  });
});
