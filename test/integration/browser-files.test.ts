// `file:` URLs in the workspace are judged by where they really lead: a symbolic link inside the workspace
// to a file outside it is refused like a path outside (opened, or followed from a page), and so is a FIFO.
import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src-preload/protocol';
import { startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let outside: string;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({
    'index.html': '<title>Links</title><a href="secret-link.html">secret</a>',
  });
  outside = await realpath(await mkdtemp(join(tmpdir(), 'weft-outside-')));
  await writeFile(join(outside, 'secret.html'), '<title>Secret</title><p>not for the agent</p>');
  await symlink(join(outside, 'secret.html'), ws.path('secret-link.html'));
  await promisify(execFile)('mkfifo', [ws.path('pipe.html')]);
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
  await rm(outside, { recursive: true, force: true });
});

const browser = (id: string, name: string, args: object) => evNamespacedCall(id, 'browser', name, args);

function outputOf(body: unknown, callId: string): string | ContentItem[] {
  const found = assertAllToolOutputsAnswered(body).find((o) => o.call_id === callId);
  if (found === undefined) throw new Error(`no output for ${callId}`);
  return found.output as string | ContentItem[];
}

describe('file: URLs through symbolic links', () => {
  it('refuses a link leading outside the workspace and a FIFO, opened or followed from a page', async () => {
    const link = `file://${ws.path('secret-link.html')}`;
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          browser('b1', 'open', { url: link }),
          browser('b2', 'open', { url: `file://${ws.path('pipe.html')}` }),
          browser('b3', 'open', { url: `file://${ws.path('index.html')}` }),
          browser('b4', 'click', { role: 'link', name: 'secret' }),
          browser('b5', 'read', {}),
          browser('b6', 'console', {}),
          evCompleted(),
        ],
      },
      answerTurn('done'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('look at the files');
    const body = server.requests[1]?.body;
    const leads = `refused to open ${link}: it leads (through a symbolic link) to ${join(outside, 'secret.html')}, outside the workspace (${ws.dir})`;
    expect(outputOf(body, 'b1')).toBe(`browser open failed: ${leads}`);
    expect(outputOf(body, 'b2')).toBe(
      `browser open failed: refused to open file://${ws.path('pipe.html')}: it is a FIFO, not a regular file or a folder`,
    );
    expect(outputOf(body, 'b3')).toBe(`Opened file://${ws.path('index.html')} — "Links" (HTTP 200).`);
    expect(String(outputOf(body, 'b5'))).not.toContain('not for the agent');
    expect(String(outputOf(body, 'b6'))).toContain(leads);
  });
});
