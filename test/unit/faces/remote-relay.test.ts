import { describe, expect, it } from 'vitest';
import type { InitializeResult, ThreadItem } from '../../../src-preload/protocol';
import { explainPipeExit } from '../../../src-main/faces/remote/pipe-failure';
import { ThreadsSeen } from '../../../src-main/faces/remote/replay';
import { incompatibility } from '../../../src-main/faces/remote/version-check';
import { makeThread, makeTurn } from '../renderer/fixtures';

const init = (userAgent: string, weftVersion?: string): InitializeResult => ({
  userAgent,
  codexHome: '/home/dev/.weft',
  platformFamily: 'unix',
  platformOs: 'linux',
  ...(weftVersion === undefined ? {} : { weftVersion }),
});

describe('the version handshake', () => {
  it('accepts the same minor before 1.0 and the same major after', () => {
    expect(incompatibility('box', '0.1.0', init('weft/0.1.4 (linux; node 20)', '0.1.4'))).toBeNull();
    expect(incompatibility('box', '1.2.0', init('weft/1.9.0 (linux; node 20)'))).toBeNull();
  });

  it('explains an older or newer remote and what to install', () => {
    expect(incompatibility('box', '0.1.0', init('weft/0.0.3 (linux; node 20)'))).toBe(
      "box runs Weft 0.0.3, and this Weft (0.1.0) needs 0.1.x there: install Weft 0.1.0 on box with `weft environments install box` (or the app's Install button)",
    );
    expect(incompatibility('box', '1.0.0', init('x', '2.0.0'))).toContain(
      'box runs Weft 2.0.0, and this Weft (1.0.0) needs 1.x there',
    );
  });

  it('refuses a server that is not Weft', () => {
    expect(incompatibility('pod', '0.1.0', init('codex_app_server/0.169.0'))).toBe(
      'pod answered as "codex_app_server/0.169.0", which is not Weft; the environment\'s command must start `weft app-server`',
    );
  });
});

describe('why a pipe ended', () => {
  const exit = (stderr: string, code = 255) => ({ code, signal: null, stderr, spawnError: null });

  it('names the usual causes with ssh’s own words', () => {
    expect(explainPipeExit('box', 'dev@box', 'ssh', exit('dev@box: Permission denied (publickey).\n'))).toBe(
      'dev@box refused the login of environment "box": ssh has no key it accepts (ssh-agent, -i in ssh_args, or ~/.ssh/config); try `ssh dev@box` yourself (dev@box: Permission denied (publickey).)',
    );
    expect(
      explainPipeExit('box', 'box', 'ssh', exit('ssh: connect to host box port 22: Connection refused\n')),
    ).toContain('ssh cannot reach box (environment "box")');
    expect(explainPipeExit('pod', null, 'kubectl', exit('', 1))).toBe(
      'the link to environment "pod" closed: kubectl exited with code 1',
    );
    expect(explainPipeExit('pod', null, 'kubectl', { ...exit(''), spawnError: 'spawn kubectl ENOENT' })).toBe(
      'cannot start kubectl for environment "pod": spawn kubectl ENOENT',
    );
  });
});

describe('replaying what a client missed', () => {
  const message = (id: string, text: string): ThreadItem => ({ type: 'agentMessage', id, text, phase: null });
  const user = (id: string): ThreadItem => ({ type: 'userMessage', id, content: [{ type: 'text', text: 'hi' }] });

  it('tells each unseen turn and item once, and nothing the client had', () => {
    const seen = new ThreadsSeen();
    const t1 = makeTurn({ id: 'turn_1', status: 'completed', items: [user('u1'), message('m1', 'one')] });
    seen.noteThread(makeThread({ id: 'th', turns: [t1] }));
    const t2 = makeTurn({ id: 'turn_2', status: 'inProgress', items: [user('u2')] });
    expect(seen.pass({ method: 'turn/started', params: { threadId: 'th', turn: t2 } })).toBe(true);
    expect(
      seen.pass({
        method: 'item/started',
        params: { threadId: 'th', turnId: 'turn_2', item: user('u2'), startedAtMs: 1 },
      }),
    ).toBe(true);
    // Meanwhile the remote finished turn 2.
    const done = makeTurn({
      id: 'turn_2',
      status: 'completed',
      completedAt: 2,
      items: [user('u2'), message('m2', 'written while away')],
    });
    const replayed = seen.replay(makeThread({ id: 'th', turns: [t1, done], status: { type: 'idle' } }));
    expect(replayed.map((n) => [n.method, 'item' in n.params ? n.params.item.id : null])).toEqual([
      ['item/completed', 'u2'],
      ['item/started', 'm2'],
      ['item/completed', 'm2'],
      ['turn/completed', null],
      ['thread/status/changed', null],
    ]);
    // The live notifications that arrive after it are not passed on twice.
    expect(
      seen.pass({
        method: 'item/completed',
        params: { threadId: 'th', turnId: 'turn_2', item: message('m2', 'x'), completedAtMs: 3 },
      }),
    ).toBe(false);
    expect(
      seen.pass({
        method: 'item/agentMessage/delta',
        params: { threadId: 'th', turnId: 'turn_2', itemId: 'm2', delta: 'x' },
      }),
    ).toBe(false);
    expect(seen.replay(makeThread({ id: 'th', turns: [t1, done] }))).toEqual([]);
  });

  it('follows the sub-agents of a followed thread, and names those it spawned unseen', () => {
    const seen = new ThreadsSeen();
    seen.follow('parent');
    // Announced live: followed from then on.
    seen.pass({ method: 'thread/started', params: { thread: makeThread({ id: 'a', parentThreadId: 'parent' }) } });
    // Another thread's child is none of this client's business.
    seen.pass({ method: 'thread/started', params: { thread: makeThread({ id: 'x', parentThreadId: 'other' }) } });
    expect(seen.followed().sort()).toEqual(['a', 'parent']);
    const spawn = (id: string, receivers: string[]): ThreadItem => ({
      type: 'collabAgentToolCall',
      id,
      tool: 'spawnAgent',
      status: 'completed',
      senderThreadId: 'parent',
      receiverThreadIds: receivers,
      prompt: 'count',
      model: null,
      reasoningEffort: null,
      agentsStates: {},
    });
    const turn = makeTurn({ id: 't', status: 'completed', items: [spawn('s1', ['a']), spawn('s2', ['b'])] });
    expect(seen.unfollowedChildren(makeThread({ id: 'parent', turns: [turn] }))).toEqual(['b']);
  });

  it('leaves the newest message of a running turn open: its completion is still to come', () => {
    const seen = new ThreadsSeen();
    seen.follow('th');
    const running = makeTurn({ id: 't', status: 'inProgress', items: [user('u'), message('m', 'part')] });
    const methods = seen.replay(makeThread({ id: 'th', turns: [running] })).map((n) => n.method);
    expect(methods).toEqual([
      'turn/started',
      'item/started',
      'item/completed',
      'item/started',
      'thread/status/changed',
    ]);
    expect(
      seen.pass({
        method: 'item/completed',
        params: { threadId: 'th', turnId: 't', item: message('m', 'whole'), completedAtMs: 1 },
      }),
    ).toBe(true);
  });
});
