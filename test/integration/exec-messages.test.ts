// `weft exec` tells the person at the terminal what happened and what they can do: a missing folder, the
// patches it applied, and commands it could not ask about (without ever advising to drop the sandbox).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { runWeftCli, type WeftRun } from '../support/weft-cli';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\nbeta\n', 'old.txt': 'gone soon\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n`,
  );
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function runWeft(args: string[]): Promise<WeftRun> {
  return runWeftCli(args, { cwd: ws.dir, weftHome: home.dir });
}

const call = (id: string, name: string, args: object) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, name, args), evCompleted()],
});

describe('weft exec messages', () => {
  it('refuses a -C folder that does not exist, before anything runs', async () => {
    const missing = join(ws.dir, 'no-such-folder');
    const result = await runWeft(['exec', '-C', missing, 'hi']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `weft exec: -C ${missing}: no such folder\n` });
    const file = await runWeft(['exec', '-C', join(ws.dir, 'notes.txt'), 'hi']);
    expect(file).toEqual({ code: 2, stdout: '', stderr: `weft exec: -C ${join(ws.dir, 'notes.txt')}: not a folder\n` });
    expect(server.requests).toHaveLength(0);
  });

  it('prints the patches it applied on stderr, like commands', async () => {
    const patch =
      '*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+gamma\n*** Delete File: old.txt\n*** End Patch';
    server.enqueueMany([call('p1', 'apply_patch', { input: patch }), answerTurn('Patched.')]);
    const result = await runWeft(['exec', '-s', 'workspace-write', '-a', 'never', 'patch it']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Patched.\n');
    expect(await readFile(join(ws.dir, 'hello.txt'), 'utf8')).toBe('Hello\n');
    const lines = result.stderr.split('\n');
    expect(lines).toContain('✎ add hello.txt (+1)');
    expect(lines).toContain('✎ update notes.txt (+1 −1)');
    expect(lines).toContain('✎ delete old.txt (−1)');
    expect(lines).toContain('  applied');
  });

  it('explains a command it could not ask about without advising to drop the sandbox', async () => {
    server.enqueueMany([call('c1', 'exec_command', { cmd: 'touch made.txt' }), answerTurn('It was declined.')]);
    const result = await runWeft(['exec', '-s', 'danger-full-access', '-a', 'untrusted', 'make a file']);
    expect(result.code).toBe(0);
    const declined = result.stderr.split('\n').find((line) => line.startsWith('weft: declined'));
    expect(declined).toBe(
      'weft: declined `touch made.txt` (approvals are set to "Ask unless read-only": only known read-only commands run without asking); weft exec cannot ask. ' +
        'To allow it, remember a rule (weft rules add --decision allow -- <prefix>) or use an approval policy that does not ask for it (-a on-request).',
    );
    expect(result.stderr).not.toMatch(/danger-full-access|without (a|the) sandbox|--sandbox/);
  });
});
