// With the network on, a redirect to an origin the user has not allowed yet is asked about (once per origin,
// remembered like an origin the model opened) and followed when allowed. The hosts beyond loopback are
// `.invalid` names: the browser's proxy (which sees every non-loopback hop) answers them with a 502.
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
import { startLocalSite, type LocalSite } from '../support/local-site';

let server: MockResponsesServer;
let site: LocalSite;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({});
  site = await startLocalSite((req, res) => {
    if (req.url === '/away') res.writeHead(302, { location: 'http://weft-redirect.invalid/' }).end();
    else if (req.url === '/elsewhere') res.writeHead(302, { location: 'http://weft-declined.invalid/' }).end();
    else res.writeHead(404).end('not here');
  });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await site.close();
  await ws.cleanup();
});

const browser = (id: string, name: string, args: object) => evNamespacedCall(id, 'browser', name, args);

function outputOf(body: unknown, callId: string): string | ContentItem[] {
  const found = assertAllToolOutputsAnswered(body).find((o) => o.call_id === callId);
  if (found === undefined) throw new Error(`no output for ${callId}`);
  return found.output as string | ContentItem[];
}

describe('redirects with the network on', () => {
  it('asks about the origin a redirect leads to, once, and follows it when allowed', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          browser('b1', 'open', { url: `${site.url}/away` }),
          browser('b2', 'open', { url: `${site.url}/away` }),
          browser('b3', 'open', { url: `${site.url}/elsewhere` }),
          evCompleted(),
        ],
      },
      answerTurn('done'),
    ]);
    const answers = ['Allow', 'Decline'];
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.dir,
      config: { approval_policy: 'on-request' },
      overrides: { sandboxPolicy: { type: 'workspaceWrite', writableRoots: [], networkAccess: true } },
      sendRequest: async () => ({ answers: { approval: { answers: [answers.shift() ?? 'Decline'] } } }),
    });
    await agent.runTurn('follow the redirects');
    const questions = agent.serverRequests.map((r) =>
      r.method === 'item/tool/requestUserInput' ? r.params.questions.map((q) => q.question) : r.method,
    );
    expect(questions).toEqual([
      ["Allow the agent's browser to load pages and resources from http://weft-redirect.invalid?"],
      ["Allow the agent's browser to load pages and resources from http://weft-declined.invalid?"],
    ]);
    const body = server.requests[1]?.body;
    // Allowed, then not found: the proxy answers for the host that does not exist.
    expect(outputOf(body, 'b1')).toBe('Opened http://weft-redirect.invalid/ (HTTP 502).');
    expect(outputOf(body, 'b2')).toBe('Opened http://weft-redirect.invalid/ (HTTP 502).');
    expect(outputOf(body, 'b3')).toBe(
      'browser open failed: refused to open http://weft-declined.invalid/: the user did not allow the browser to reach http://weft-declined.invalid',
    );
  });
});
