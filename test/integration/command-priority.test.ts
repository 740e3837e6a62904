// The agent's commands run below the host that serves the person (safety/sandbox/background.ts): each in a
// session of its own, whose scheduling group (Linux's autogroup) is set 10 nice steps below the host's, and
// itself 10 steps below the host's nice; what it starts inherits both. Checked from inside the command, over
// the real exec tool, sandboxed (bwrap begins a new session there) and not.
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src-main/safety/sandbox/linux-bwrap';
import { BACKGROUND_NICE } from '../../src-main/util/pool-priority';
import { startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

const linux = process.platform === 'linux';
const probe = linux ? await probeBwrap() : { ok: false as const, reason: 'not Linux' };

/** This process's session group's nice; null where the kernel does not group tasks by session. */
function ownGroupNice(): number | null {
  try {
    const match = /\bnice\s+(-?\d+)/.exec(readFileSync('/proc/self/autogroup', 'utf8'));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

const group = ownGroupNice();
/** The nice the command's session group is set to (by a process of its own, retrying: background.ts). */
const groupTarget = group === null ? null : Math.min(19, group + BACKGROUND_NICE);

/**
 * Prints the command's session group and the nice of a process it starts; `waitForGroup`: once the group has
 * reached its nice, waiting up to 5 s (another process sets it, at the kernel's pace).
 */
function report(waitForGroup: boolean): string {
  const wait =
    waitForGroup && groupTarget !== null
      ? `for i in $(seq 50); do grep -q ' nice ${groupTarget}$' /proc/self/autogroup && break; sleep 0.1; done; `
      : '';
  return [
    group === null ? "echo 'no autogroup'" : `${wait}cat /proc/self/autogroup`,
    'awk \'{ print "nice " $19 }\' /proc/self/stat',
  ].join('; ');
}

let server: MockResponsesServer;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
});

/**
 * Runs `report` as the agent's command under `sandboxMode` (in a terminal with `tty`; `priority`: the config's
 * `agent_command_priority`); its output.
 */
async function run(sandboxMode: string, tty = false, priority?: 'normal'): Promise<string> {
  server.enqueueMany([
    {
      kind: 'sse',
      events: [
        evCreated(),
        evFunctionCall('c1', 'exec_command', { cmd: report(priority === undefined), tty }),
        evCompleted(),
      ],
    },
    answerTurn('done'),
  ]);
  agent = startAgent({
    baseUrl: server.url,
    cwd: ws.dir,
    config: {
      sandbox_mode: sandboxMode,
      ...(priority === undefined ? {} : { agent_command_priority: priority }),
      sandbox_workspace_write: { exclude_slash_tmp: true, exclude_tmpdir_env_var: true },
    },
  });
  await agent.runTurn('how is it scheduled');
  const output = assertAllToolOutputsAnswered(server.requests[1]?.body).find((o) => o.call_id === 'c1')?.output;
  return String(output);
}

function expectBelowHost(output: string): void {
  if (groupTarget === null) expect(output).toContain('no autogroup');
  else expect(output).toMatch(new RegExp(`/autogroup-\\d+ nice ${groupTarget}\\r?\\n`));
  expect(output).toMatch(new RegExp(`\\nnice ${Math.min(19, getPriority() + BACKGROUND_NICE)}\\r?\\n`));
}

describe.runIf(linux)('the agent’s commands run below the host', () => {
  it('without the sandbox', async () => {
    expectBelowHost(await run('danger-full-access'));
  });

  it.runIf(probe.ok)('in the sandbox, whose session begins inside bwrap', async () => {
    expectBelowHost(await run('workspace-write'));
  });

  it.runIf(probe.ok)('in a terminal (tty), in the sandbox', async () => {
    expectBelowHost(await run('workspace-write', true));
  });

  it.runIf(probe.ok)('at the host’s own priority with agent_command_priority = "normal"', async () => {
    const output = await run('workspace-write', false, 'normal');
    // A session of its own (bwrap's) whose group is left as a new one starts, and the host's own nice.
    if (group !== null) expect(output).toMatch(/\/autogroup-\d+ nice 0\r?\n/);
    expect(output).toMatch(new RegExp(`\\nnice ${getPriority()}\\r?\\n`));
  });
});
