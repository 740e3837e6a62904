// Codex's own hooks (`~/.codex/hooks.json` and `[hooks]` in `~/.codex/config.toml`) through `weft app-server`
// when the user's config.toml says `[codex] read_config = true`: listed with their files, held back until
// trusted like any other hook, then run (a UserPromptSubmit that exits 2 keeps the prompt from the model).
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useHooksHarness } from '../support/hooks-harness';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn } from '../support/sse';

const h = useHooksHarness('[codex]\nread_config = true\n');
let fakeHome: string;

beforeEach(async () => {
  fakeHome = await realpath(await mkdtemp(join(tmpdir(), 'weft-fake-home-')));
});
afterEach(async () => {
  await rm(fakeHome, { recursive: true, force: true });
});

describe('hooks of ~/.codex', () => {
  it('are read under [codex] read_config, trusted by hash like the others', { timeout: 60_000 }, async () => {
    const codexHome = join(fakeHome, '.codex');
    await mkdir(codexHome);
    const prompt = h.hooks.command('UserPromptSubmit', 'block:secret');
    const stop = h.hooks.command('Stop');
    await writeFile(
      join(codexHome, 'hooks.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: prompt, timeout: 30 }] }] } }),
    );
    await writeFile(
      join(codexHome, 'config.toml'),
      `model = "ignored"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(stop)}\ntimeout = 30\n`,
    );
    const c = StdioRpcClient.start({ WEFT_HOME: h.home.dir, MOCK_API_KEY: 'x', HOME: fakeHome }, h.ws.dir);
    try {
      await c.initialize();
      const list = async () =>
        (
          await c.request<{ data: { hooks: Record<string, unknown>[]; errors: unknown[] }[] }>('hooks/list', {
            cwds: [h.ws.dir],
          })
        ).data[0];
      const before = await list();
      expect(before?.errors).toEqual([]);
      expect(before?.hooks.map((m) => [m['eventName'], m['key'], m['source'], m['command'], m['trustStatus']])).toEqual(
        [
          ['userPromptSubmit', `${join(codexHome, 'hooks.json')}:user_prompt_submit:0:0`, 'user', prompt, 'untrusted'],
          ['stop', `${join(codexHome, 'config.toml')}:stop:0:0`, 'user', stop, 'untrusted'],
        ],
      );
      const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
      const turn = async (text: string) => {
        await c.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text, text_elements: [] }] });
        await c.waitFor(
          (m) => m.method === 'turn/completed' && c.notifications('turn/completed').length === done + 1,
          'turn/completed',
        );
        done += 1;
      };
      let done = 0;
      // Untrusted: nothing runs, the prompt reaches the model.
      h.server.enqueue(answerTurn('ACK 1'));
      await turn('a secret, untrusted');
      expect(await h.hooks.runs()).toEqual([]);
      expect(h.server.requests).toHaveLength(1);
      await h.trustAll(c);
      expect((await list())?.hooks.map((m) => m['trustStatus'])).toEqual(['trusted', 'trusted']);
      // A session reads its hooks when it is loaded: a new thread runs them.
      const second = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
      await c.request('turn/start', {
        threadId: second.thread.id,
        input: [{ type: 'text', text: 'another secret', text_elements: [] }],
      });
      await c.notification('turn/completed', (p) => p['threadId'] === second.thread.id);
      expect(h.server.requests).toHaveLength(1);
      const runs = await h.hooks.runs();
      expect(runs.map((r) => [r.event, r.payload['prompt']])).toEqual([['UserPromptSubmit', 'another secret']]);
    } finally {
      await c.close();
    }
  });
});
