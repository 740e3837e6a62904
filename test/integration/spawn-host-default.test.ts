// The host never forks itself to start a command: the built `weft app-server`, with no setting, starts
// commands through its spawn host. Node's spawn is synchronous in the calling process: it forks it (the cost
// grows with the host's memory) and waits until the child has exec'd, which on a busy machine waits for the
// child to be scheduled. On the many-agents bench that was about 2 s of a 25 s run with the host's main
// thread stopped, in 184 spawns of up to 200 ms each. The command's parent, from /proc, says who forked it.
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { StdioRpcClient } from '../support/rpc-client';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let client: StdioRpcClient | undefined;
let home: WeftHome | undefined;
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await client?.close();
  await home?.cleanup();
  await ws?.cleanup();
  client = home = ws = undefined;
});

/** The command line of process `pid`, its arguments joined with spaces. */
function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
}

it('starts a command from a process of its own, not by forking the host', async () => {
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome('sandbox_mode = "danger-full-access"\n');
  client = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  await client.initialize();
  const host = client.child.pid ?? -1;

  const ran = await client.request<{ exitCode: number; stdout: string }>('command/exec', {
    command: ['sh', '-c', 'echo "parent=$PPID"'],
  });
  const parent = Number(/parent=(\d+)/.exec(ran.stdout)?.[1]);

  expect({ forkedByHost: parent === host, parent: commandLine(parent) }).toEqual({
    forkedByHost: false,
    parent: expect.stringMatching(/spawn-host\.js$/),
  });
});

it('has its spawn host gone by the time it has exited itself', async () => {
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome('sandbox_mode = "danger-full-access"\n');
  client = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  await client.initialize();
  const ran = await client.request<{ stdout: string }>('command/exec', { command: ['sh', '-c', 'echo "$PPID"'] });
  const spawnHost = Number(ran.stdout.trim());
  expect(commandLine(spawnHost)).toMatch(/spawn-host\.js$/);

  await client.close();
  client = undefined;
  // Left to notice on its own that its parent is gone, it outlived it, still writing into WEFT_HOME (Node's
  // compile cache) while the home was being removed. Gone means no /proc entry (a zombie is reaped by
  // init once its parent has exited, so one still listed here would be a live process).
  expect(existsSync(`/proc/${spawnHost}`)).toBe(false);
});
