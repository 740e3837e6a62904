import { afterEach, describe, expect, it } from 'vitest';
import { mcpServerOverrides } from '../../../src-main/faces/acp/mcp-servers';
import { promptToInput } from '../../../src-main/faces/acp/prompt-input';
import { commandDecisionOf, commandPermission, patchDecisionOf } from '../../../src-main/faces/acp/permissions';
import { UpdateMapper } from '../../../src-main/faces/acp/updates';
import { FileKeyStore } from '../../../src-main/config/key-store';
import { RuleStore } from '../../../src-main/safety/approvals/rules';
import { threadConfig } from '../../../src-main/server/thread-factory';
import { makeWeftHome, type WeftHome } from '../../support/workspace';

let home: WeftHome | null = null;
afterEach(async () => {
  await home?.cleanup();
  home = null;
});

describe('ACP MCP servers in the thread config', () => {
  it('become mcp_servers entries of the thread, beside the ones config.toml has', async () => {
    home = await makeWeftHome('[mcp_servers.mine]\ncommand = "my-server"\n');
    const overrides = mcpServerOverrides([
      { name: 'docs server', command: 'docs', args: ['--stdio'], env: [{ name: 'TOKEN', value: 's3cret' }] },
      { type: 'http', name: 'remote', url: 'https://mcp.example/mcp', headers: [{ name: 'X-Key', value: 'k' }] },
      { type: 'sse', name: 'old', url: 'https://mcp.example/sse', headers: [] },
    ]);
    const host = {
      weftHome: home.dir,
      env: {},
      defaultCwd: home.dir,
      rules: new RuleStore(home.dir),
      log: () => undefined,
      keyStore: new FileKeyStore(home.dir),
    };
    const { loaded } = await threadConfig(host, { config: overrides }, home.dir);
    expect(loaded.config.mcp_servers).toEqual({
      mine: { command: 'my-server' },
      'docs server': { command: 'docs', args: ['--stdio'], env: { TOKEN: 's3cret' } },
      remote: { url: 'https://mcp.example/mcp', http_headers: { 'X-Key': 'k' } },
      old: { url: 'https://mcp.example/sse' },
    });
  });
});

describe('ACP prompts', () => {
  it('turn text, images, embedded files and links into Weft input', () => {
    expect(
      promptToInput([
        { type: 'text', text: 'Look' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///p/a.ts', text: 'let a = 1;' } },
        { type: 'resource', resource: { uri: 'file:///p/b.bin', blob: 'AA==', mimeType: 'application/octet-stream' } },
        { type: 'resource_link', name: 'c.ts', uri: 'file:///p/c.ts' },
      ]),
    ).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'image', url: 'data:image/png;base64,AAAA' },
      { type: 'text', text: '<context ref="file:///p/a.ts">\nlet a = 1;\n</context>' },
      { type: 'text', text: '[binary resource file:///p/b.bin (application/octet-stream) not included]' },
      { type: 'text', text: '[@c.ts](file:///p/c.ts)' },
    ]);
  });
});

describe('ACP permissions', () => {
  const params = {
    threadId: 't',
    turnId: 'u',
    itemId: 'i',
    startedAtMs: 0,
    command: 'npm test',
    cwd: '/p',
    proposedExecpolicyAmendment: ['npm', 'test'],
  };
  it('offers allow once, always (the proposed rule) and reject', () => {
    expect(commandPermission('s', params).options).toEqual([
      { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'allow-always', name: 'Always allow `npm test`', kind: 'allow_always' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ]);
  });
  it('maps the outcome to the decision', () => {
    expect(commandDecisionOf({ outcome: 'selected', optionId: 'allow-once' }, params)).toBe('accept');
    expect(commandDecisionOf({ outcome: 'selected', optionId: 'allow-always' }, params)).toEqual({
      acceptWithExecpolicyAmendment: { execpolicy_amendment: ['npm', 'test'] },
    });
    expect(
      commandDecisionOf(
        { outcome: 'selected', optionId: 'allow-always' },
        { ...params, proposedExecpolicyAmendment: null },
      ),
    ).toBe('acceptForSession');
    expect(commandDecisionOf({ outcome: 'selected', optionId: 'reject' }, params)).toBe('decline');
    expect(commandDecisionOf({ outcome: 'cancelled' }, params)).toBe('cancel');
    expect(patchDecisionOf({ outcome: 'selected', optionId: 'allow-always' })).toBe('acceptForSession');
    // Only what the request offers.
    const network = {
      applyNetworkPolicyAmendment: { network_policy_amendment: { host: 'example.com', action: 'allow' as const } },
    };
    const limited = { ...params, availableDecisions: [network, 'decline' as const] };
    expect(commandPermission('s', limited).options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
    expect(commandDecisionOf({ outcome: 'selected', optionId: 'allow-once' }, limited)).toEqual(network);
    expect(patchDecisionOf({ outcome: 'cancelled' })).toBe('cancel');
  });
});

describe('ACP updates', () => {
  it('replays a patch that cannot be matched to the file as its hunks, with a path relative title', async () => {
    const mapper = new UpdateMapper('/p', async () => null);
    const updates = await mapper.replay({
      id: 'turn',
      status: 'completed',
      error: null,
      startedAt: 0,
      completedAt: 0,
      durationMs: 0,
      items: [
        {
          type: 'fileChange',
          id: 'fc',
          status: 'declined',
          changes: [
            {
              path: '/p/src/a.txt',
              kind: { type: 'update', move_path: null },
              diff: '--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n',
            },
          ],
        },
      ],
    });
    expect(updates).toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'fc',
        title: 'Edit src/a.txt',
        kind: 'edit',
        status: 'failed',
        content: [{ type: 'diff', path: '/p/src/a.txt', oldText: 'x\ny\nz\n', newText: 'x\nY\nz\n' }],
        locations: [{ path: '/p/src/a.txt' }],
        rawInput: { changes: expect.any(Array) },
      },
    ]);
  });
});
